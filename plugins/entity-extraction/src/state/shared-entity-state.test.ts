import { type ChatMessage, type IContextStore, MemoryContextStore, type StoreKey } from '@ctxkit/core';
import { createConformanceContext, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';

import { createStrategy } from '../create-entity-extraction-strategy';
import { compileStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, PersistedEntityState } from './entity-state';
import type { EntityUpdate } from './entity-update';
import { SharedEntityState } from './shared-entity-state';

const key: StoreKey = { agentId: 'booking-agent', sessionId: 's1', kind: 'entities', name: 'state' };
const stateSchema = {
  type: 'object',
  properties: {
    origin: { type: 'string' },
    destination: { type: 'string' },
    date: { type: 'string' },
    seats: { type: 'integer', minimum: 1 },
  },
};
const schema = compileStateSchema(stateSchema, 'test');

function update(source: number, changes: Record<string, unknown>): EntityUpdate {
  const diff: EntityFieldChange[] = Object.entries(changes).map(([field, after]) => ({ field, before: null, after }));
  return {
    sourceMessageIndex: source,
    sourceFingerprint: `fp-${source}`,
    diff,
    timestamp: source,
    offline: true,
    extractor: 'offline-extractor',
  };
}

/** Covered when the record's extraction point reached the source (the histories here are never rewritten). */
const coveredFrom = (source: number) => (record: Readonly<PersistedEntityState>) => record.processedThrough >= source;

function shared(store: IContextStore, warnings: string[] = []): SharedEntityState {
  return new SharedEntityState({ store, key, schema, warn: (message) => warnings.push(message) });
}

describe('SharedEntityState', () => {
  it('applies an update onto the record another instance wrote meanwhile, keeping both', async () => {
    const store = new MemoryContextStore();
    const a = shared(store);
    const b = shared(store);
    await a.read();
    await b.read();
    await expect(b.apply(update(0, { origin: 'Boston' }), coveredFrom(0))).resolves.toMatchObject({
      outcome: 'applied',
      version: { version: 1 },
    });
    // A computed its update on the empty state it read, before B wrote.
    await expect(a.apply(update(2, { destination: 'Seattle' }), coveredFrom(2))).resolves.toMatchObject({
      outcome: 'applied',
      version: { version: 2 },
    });
    await expect(store.get(key)).resolves.toMatchObject({
      state: { origin: 'Boston', destination: 'Seattle' },
      processedThrough: 2,
      versions: [{ version: 1 }, { version: 2 }],
    });
  });

  it('drops an update whose source message the other instance already extracted', async () => {
    const store = new MemoryContextStore();
    const a = shared(store);
    const b = shared(store);
    await a.read();
    await b.read();
    await b.apply(update(2, { destination: 'Seattle', origin: 'Boston' }), coveredFrom(2));
    await expect(a.apply(update(2, { destination: 'Seattle' }), coveredFrom(2))).resolves.toEqual({
      outcome: 'covered',
    });
    expect(a.current.versions).toHaveLength(1);
    await expect(store.get(key)).resolves.toMatchObject({ versions: [{ sourceMessageIndex: 2 }] });
  });

  it(
    'keeps updates in memory while the store fails, and writes them onto the current record with the next ' + 'call',
    async () => {
      const store = new MemoryContextStore();
      const setIfVersion = store.setIfVersion.bind(store);
      let down = true;
      store.setIfVersion = (k, value, expected) =>
        down ? Promise.reject(new Error('disk full')) : setIfVersion(k, value, expected);
      const warnings: string[] = [];
      const a = shared(store, warnings);
      await a.read();
      await a.apply(update(2, { origin: 'Boston' }), coveredFrom(2));
      expect(a.current.state).toEqual({ origin: 'Boston' });
      expect(warnings).toEqual([expect.stringMatching(/could not be saved.*disk full/)]);
      await expect(store.get(key)).resolves.toBeUndefined();
      down = false;
      // Meanwhile another instance extracted an earlier message.
      await shared(store).apply(update(0, { seats: 2 }), coveredFrom(0));
      await a.read();
      expect(a.current.state).toEqual({ origin: 'Boston', seats: 2 });
      await expect(store.get(key)).resolves.toMatchObject({
        state: { origin: 'Boston', seats: 2 },
        processedThrough: 2,
      });
    },
  );

  it('peeks at the state with the updates a failed write left, writing nothing', async () => {
    const store = new MemoryContextStore();
    const setIfVersion = store.setIfVersion.bind(store);
    let writes = 0;
    let down = true;
    store.setIfVersion = (k, value, expected) => (
      writes++,
      down ? Promise.reject(new Error('disk full')) : setIfVersion(k, value, expected)
    );
    const a = shared(store);
    await a.read();
    await a.apply(update(2, { origin: 'Boston' }), coveredFrom(2));
    down = false;
    const tried = writes;
    await expect(a.peek()).resolves.toMatchObject({ state: { origin: 'Boston' }, processedThrough: 2 });
    expect(writes).toBe(tried);
    await expect(store.get(key)).resolves.toBeUndefined();
  });

  it(
    'restores a state with compare-and-set onto what another writer left, telling no one of it as a write of ' +
      'updates',
    async () => {
      const store = new MemoryContextStore();
      const written: Array<[number, number]> = [];
      const a = new SharedEntityState({
        store,
        key,
        schema,
        warn: () => undefined,
        written: async (replaced, record) => void written.push([replaced.versions.length, record.versions.length]),
      });
      await a.apply(update(0, { origin: 'Boston' }), coveredFrom(0));
      // Another instance writes after A read.
      await shared(store).apply(update(2, { destination: 'Seattle' }), coveredFrom(2));
      await a.restore((current) => ({ ...current, state: { origin: 'Lima' }, versions: current.versions.slice(0, 1) }));
      await expect(store.get(key)).resolves.toMatchObject({
        state: { origin: 'Lima' },
        versions: [{ version: 1 }],
        processedThrough: 2,
      });
      expect(a.current.state).toEqual({ origin: 'Lima' });
      expect(written).toEqual([[0, 1]]);
    },
  );

  it('reads afresh on every call and falls back to the state read last when the store cannot be read', async () => {
    const store = new MemoryContextStore();
    const warnings: string[] = [];
    const a = shared(store, warnings);
    await shared(store).apply(update(0, { origin: 'Boston' }), coveredFrom(0));
    await expect(a.read()).resolves.toMatchObject({ state: { origin: 'Boston' } });
    store.getVersioned = () => Promise.reject(new Error('connection lost'));
    await expect(a.read()).resolves.toMatchObject({ state: { origin: 'Boston' } });
    expect(warnings).toEqual([expect.stringMatching(/could not be read.*connection lost/)]);
  });
});

describe('two entity extraction instances on one store (two processes serving one session)', () => {
  /** A model that answers each extraction with the city named in the newest user message, as field "turn_<n>". */
  const answer =
    (delayMs: number): ScriptStep =>
    (request) => {
      const sent = String(request.messages[1]!.content);
      const fields: Record<string, string> = {};
      for (const match of sent.matchAll(/Turn (\d+): I fly to (\w+)\./g)) fields[`turn_${match[1]}`] = match[2]!;
      return { reply: JSON.stringify(fields), delayMs };
    };
  const turnSchema = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`turn_${index + 1}`, { type: 'string' }])),
  };
  const cities = [
    'Seattle',
    'Paris',
    'Tokyo',
    'Lima',
    'Oslo',
    'Cairo',
    'Quito',
    'Rome',
    'Delhi',
    'Perth',
    'Dakar',
    'Kyiv',
  ];

  function conversation(turns: number): ChatMessage[] {
    return Array.from({ length: turns }, (_, index) => [
      { role: 'user', content: `Turn ${index + 1}: I fly to ${cities[index]}.` } as ChatMessage,
      { role: 'assistant', content: `Noted: ${cities[index]}.` } as ChatMessage,
    ]).flat();
  }

  function instance(store: IContextStore, delayMs: number) {
    const llm = new ScriptedLLMClient([answer(delayMs)], { repeatLast: true });
    const { context, events } = createConformanceContext(
      's1',
      { agentId: 'booking-agent', strategyId: 'std-entity-extraction-strategy', llm, store },
      undefined,
    );
    return { strategy: createStrategy({ stateSchema: turnSchema }, context), events, llm };
  }

  it('loses no update and versions each turn once, with turns alternating and then overlapping', async () => {
    const store = new MemoryContextStore();
    // The first instance's model is slower, so that overlapping extractions finish in the other order.
    const a = instance(store, 40);
    const b = instance(store, 5);
    for (let turn = 1; turn <= 4; turn++) {
      await (turn % 2 === 0 ? b : a).strategy.composePayload('sys', conversation(turn).slice(0, -1), []);
    }
    // Overlapping: the same turn on both, then a turn and the next one at once.
    for (const [first, second] of [
      [5, 5],
      [6, 7],
      [8, 8],
      [9, 10],
      [11, 12],
    ] as const) {
      await Promise.all([
        a.strategy.composePayload('sys', conversation(first).slice(0, -1), []),
        b.strategy.composePayload('sys', conversation(second).slice(0, -1), []),
      ]);
    }
    const state = await a.strategy.getState();
    expect(state).toEqual(Object.fromEntries(cities.map((city, index) => [`turn_${index + 1}`, city])));
    const versions = await b.strategy.getVersions();
    const changed = versions.flatMap((version) => version.diff.map((change) => change.field));
    expect(changed.sort()).toEqual(Object.keys(state).sort());
    expect(versions.map((version) => version.version)).toEqual(versions.map((_, index) => index + 1));
    expect([...a.events, ...b.events].filter((event) => event.name === 'strategy-warning')).toEqual([]);
  });
});

describe('a late request on one store (a history shorter than the read point)', () => {
  const bookingSchema = {
    type: 'object',
    properties: {
      cabin: { type: 'string', enum: ['economy', 'business'] },
      reservation_ids: { type: 'array', items: { type: 'string', pattern: '^[A-Z0-9]{6}$' } },
    },
    additionalProperties: false,
  };
  const history: ChatMessage[] = [
    { role: 'user', content: 'Economy please, for reservation AAA111.' },
    { role: 'assistant', content: 'Noted.' },
    { role: 'user', content: 'Also BBB222.' },
    { role: 'assistant', content: 'Added.' },
    { role: 'user', content: 'And CCC333, and make it business.' },
    { role: 'assistant', content: 'Done.' },
  ];
  /** A model that answers with the whole fields each user message gives (a full list replaces the field). */
  const answers: Record<number, string> = {
    0: '{"cabin": "economy", "reservation_ids": ["AAA111"]}',
    2: '{"reservation_ids": ["AAA111", "BBB222"]}',
    4: '{"cabin": "business", "reservation_ids": ["AAA111", "BBB222", "CCC333"]}',
  };
  const model: ScriptStep = (request) => {
    const indexes = [...String(request.messages[1]!.content).matchAll(/<new_user_message index="(\d+)">/g)].map(
      (match) => Number(match[1]),
    );
    return answers[indexes[indexes.length - 1]!] ?? '{}';
  };
  function instance(store: IContextStore, llm: 'offline' | 'llm') {
    const client = llm === 'llm' ? new ScriptedLLMClient([model], { repeatLast: true }) : undefined;
    const { context, events } = createConformanceContext(
      's1',
      { agentId: 'booking-agent', strategyId: 'std-entity-extraction-strategy', llm: client, store },
      undefined,
    );
    return { strategy: createStrategy({ stateSchema: bookingSchema }, context), events, llm: client };
  }
  const stored = (store: IContextStore) => store.get(key) as Promise<PersistedEntityState>;

  for (const llm of ['offline', 'llm'] as const) {
    it(`leaves the state, its versions and the read point as they are (${llm} extractor)`, async () => {
      const store = new MemoryContextStore();
      const a = instance(store, llm);
      const b = instance(store, llm);
      // A reads the conversation turn by turn to message 4.
      for (const end of [1, 3, 5]) await a.strategy.composePayload('sys', history.slice(0, end), []);
      const before = structuredClone(await stored(store));
      expect(before).toMatchObject({
        state: { cabin: 'business', reservation_ids: ['AAA111', 'BBB222', 'CCC333'] },
        processedThrough: 4,
      });
      // B reports turns that A has read past, then composes for one of them.
      await b.strategy.onTurnComplete(history.slice(0, 2));
      await b.strategy.onTurnComplete(history.slice(0, 4));
      const late = await b.strategy.composePayload('sys', history.slice(0, 3), []);
      const after = await stored(store);
      expect({
        state: after.state,
        versions: after.versions,
        processedThrough: after.processedThrough,
        processedFingerprint: after.processedFingerprint,
      }).toEqual({
        state: before.state,
        versions: before.versions,
        processedThrough: before.processedThrough,
        processedFingerprint: before.processedFingerprint,
      });
      expect(late.stats.extra!['entities']).toMatchObject({ version: before.versions.length, processedThrough: 4 });
      expect(b.events.filter((event) => event.name === 'entities-updated')).toEqual([]);
      if (b.llm) expect(b.llm.callCount).toBe(0);
      // A goes on from where it stood: the next message is read once.
      await a.strategy.composePayload('sys', [...history, { role: 'user', content: 'Economy after all.' }], []);
      if (llm === 'offline')
        expect((await stored(store)).versions.at(-1)).toMatchObject({
          sourceMessageIndex: 6,
          diff: [{ field: 'cabin', before: 'business', after: 'economy' }],
        });
    });
  }

  it('still reads a shorter history whose messages differ from those read as a rewritten one', async () => {
    const store = new MemoryContextStore();
    const a = instance(store, 'offline');
    for (const end of [1, 3, 5]) await a.strategy.composePayload('sys', history.slice(0, end), []);
    // Compacted: a summary in place of the first turns, then a new user message.
    const compacted: ChatMessage[] = [
      { role: 'user', content: 'Summary: reservations AAA111, BBB222 and CCC333 in business.' },
      { role: 'assistant', content: 'Understood.' },
      { role: 'user', content: 'Back to economy, please.' },
    ];
    await instance(store, 'offline').strategy.composePayload('sys', compacted, []);
    expect(await stored(store)).toMatchObject({ state: { cabin: 'economy' }, processedThrough: 2 });
    expect((await stored(store)).versions.at(-1)).toMatchObject({
      sourceMessageIndex: 2,
      diff: [{ field: 'cabin', before: 'business', after: 'economy' }],
    });
  });
});
