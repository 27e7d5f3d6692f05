import {
  type ChatMessage,
  EpochNotFoundError,
  type IContextStore,
  type LLMPayload,
  MemoryContextStore,
  type StoreKey,
} from '@ctxkit/core';
import { createConformanceContext, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';

import { createStrategy } from './create-entity-extraction-strategy';

const stateSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    date: { type: 'string', format: 'date' },
    note: { type: ['string', 'null'] },
  },
  required: ['destination', 'date'],
  additionalProperties: false,
};

function setup(options: { script?: ScriptStep[]; store?: IContextStore; config?: Record<string, unknown> } = {}) {
  const llm = new ScriptedLLMClient(options.script ?? [], { name: 'scripted' });
  const { context, events } = createConformanceContext(
    's1',
    {
      agentId: 'booking-agent',
      strategyId: 'std-entity-extraction-strategy',
      llm,
      store: options.store ?? new MemoryContextStore(),
    },
    undefined,
  );
  // Every payload sends the newest state and drops only what must go (cutBackRatio 1); the held
  // window and state of a cut back are tested with the prompt-caching cases that set it.
  const strategy = createStrategy({ stateSchema, cutBackRatio: 1, ...options.config }, context);
  return { strategy, events, llm, context };
}

const SYSTEM = 'You book flights.';
const history1: ChatMessage[] = [{ role: 'user', content: 'I want to fly to Seattle, aisle seat please.' }];
const history2: ChatMessage[] = [
  ...history1,
  { role: 'assistant', content: 'When do you want to fly?' },
  { role: 'user', content: 'On May 20th 2024, and forget the aisle.' },
];
const history3: ChatMessage[] = [
  ...history2,
  { role: 'assistant', content: 'Booked.' },
  { role: 'user', content: 'Actually, Portland.' },
];

const FIRST = '{"destination": "Seattle", "note": "aisle"}';
const SECOND = '{"date": "2024-05-20", "note": null}';
const THIRD = '{"destination": "Portland"}';

const bytes = (payload: LLMPayload): string => JSON.stringify(payload.messages);

/** Indexes of the history messages a payload does not carry as they are. */
function absent(payload: LLMPayload, history: ChatMessage[]): number[] {
  const sent = new Set<unknown>(payload.messages);
  return history.flatMap((message, index) => (sent.has(message) ? [] : [index]));
}

describe('EntityExtractionStrategy epochs', () => {
  it(
    'records every extraction that changed the state, naming the changed fields, with an epoch-recorded event; one ' +
      'that changed nothing is no epoch',
    async () => {
      const { strategy, events } = setup({ script: [FIRST, SECOND, '{"destination": "Seattle"}'] });
      await strategy.composePayload(SYSTEM, history1, []);
      await strategy.composePayload(SYSTEM, history2, []);
      await strategy.composePayload(
        SYSTEM,
        [...history2, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Seattle, right?' }],
        [],
      );
      const epochs = await strategy.epochs();
      expect(epochs.map(({ id, kind, turn, range, description }) => ({ id, kind, turn, range, description }))).toEqual([
        {
          id: 'e1',
          kind: 'extraction',
          turn: 1,
          range: { from: 0, to: 1 },
          description: 'extraction from message 0 changed destination, note (state v0 → v1)',
        },
        {
          id: 'e2',
          kind: 'extraction',
          turn: 2,
          range: { from: 1, to: 3 },
          description: 'extraction from message 2 changed date, note (state v1 → v2)',
        },
      ]);
      expect(events.filter((event) => event.name === 'epoch-recorded').map((event) => event.payload)).toEqual(
        epochs.map((epoch) => ({
          agentId: 'booking-agent',
          sessionId: 's1',
          strategyId: 'std-entity-extraction-strategy',
          turn: epoch.turn,
          epoch,
        })),
      );
    },
  );

  it(
    'with cutBackRatio below 1, a state block held from an earlier payload is never sent after an undo took its ' +
      'versions back',
    async () => {
      const { strategy } = setup({ script: [FIRST, SECOND], config: { cutBackRatio: 0.5 } });
      const first = await strategy.composePayload(SYSTEM, history1, []);
      expect(String(first.messages[1]!.content)).toContain('Seattle');
      // The whole history fits: the state block of the first payload is sent again (what the newer
      // state adds is in the messages, verbatim), so the payload only appends.
      const second = await strategy.composePayload(SYSTEM, history2, []);
      expect(second.messages[1]).toBe(first.messages[1]);
      expect(second.stats.extra).toMatchObject({ heldMemory: ['entity state'] });
      expect(second.messages.slice(2)).toEqual(history2);
      expect(await strategy.getVersion()).toBe(2);

      await strategy.undo('e1');
      const undone = await strategy.composePayload(SYSTEM, history2, []);
      expect(undone.messages[1]).toEqual({
        role: 'user',
        content: expect.stringContaining('<conversation_state version="0">'),
      });
      expect(String(undone.messages[1]!.content)).not.toContain('Seattle');
      expect(undone.stats.extra).not.toHaveProperty('heldMemory');
    },
  );

  it(
    'undo restores the state before the extraction: the payload for the history composed before it comes back byte ' +
      'for byte, without reading anything again',
    async () => {
      const { strategy, llm, events } = setup({ script: [FIRST, SECOND] });
      const before = await strategy.composePayload(SYSTEM, history1, []);
      const after = await strategy.composePayload(SYSTEM, history2, []);
      expect(after.messages[1]).not.toEqual(before.messages[1]);

      const result = await strategy.undo('e2');
      expect(result).toEqual({ undone: expect.objectContaining({ id: 'e2', kind: 'extraction' }), alsoUndone: [] });
      expect(bytes(await strategy.composePayload(SYSTEM, history1, []))).toBe(bytes(before));
      // The newer history shows the restored state too: the message the undone extraction read is not read again.
      const undone = await strategy.composePayload(SYSTEM, history2, []);
      expect(undone.messages[1]).toEqual(before.messages[1]);
      expect(undone.messages.slice(2)).toEqual(history2);
      expect(llm.callCount).toBe(2);
      expect(await strategy.getState()).toEqual({ destination: 'Seattle', note: 'aisle' });
      expect(await strategy.getVersion()).toBe(1);
      expect(await strategy.epochs()).toEqual([expect.objectContaining({ id: 'e1' })]);
      expect(events.find((event) => event.name === 'epoch-undone')!.payload).toEqual({
        agentId: 'booking-agent',
        sessionId: 's1',
        strategyId: 'std-entity-extraction-strategy',
        turn: 2,
        epoch: result.undone,
        alsoUndone: [],
        historyRestored: false,
      });
    },
  );

  it(
    'after an undo, the payload for the newer history is the one an extraction that found nothing would have ' +
      'given, and extraction goes on from the next message',
    async () => {
      const { strategy, llm } = setup({ script: [FIRST, SECOND, THIRD] });
      const reference = setup({ script: [FIRST, '{}'] }).strategy;
      await strategy.composePayload(SYSTEM, history1, []);
      await strategy.composePayload(SYSTEM, history2, []);
      await strategy.undo('e2');
      await reference.composePayload(SYSTEM, history1, []);
      expect(bytes(await strategy.composePayload(SYSTEM, history2, []))).toBe(
        bytes(await reference.composePayload(SYSTEM, history2, [])),
      );

      await strategy.composePayload(SYSTEM, history3, []);
      expect(llm.callCount).toBe(3);
      expect(String(llm.requests[2]!.messages[1]!.content)).toContain('Actually, Portland.');
      expect(String(llm.requests[2]!.messages[1]!.content)).not.toContain('forget the aisle');
      expect(await strategy.getState()).toEqual({ destination: 'Portland', note: 'aisle' });
      expect((await strategy.epochs()).map((epoch) => [epoch.id, epoch.description])).toEqual([
        ['e1', 'extraction from message 0 changed destination, note (state v0 → v1)'],
        ['e3', 'extraction from message 4 changed destination (state v1 → v2)'],
      ]);
    },
  );

  it('undoing an older extraction undoes the later ones with it, in every instance on the store', async () => {
    const store = new MemoryContextStore();
    const { strategy } = setup({ store, script: [FIRST, SECOND, THIRD] });
    const other = setup({ store }).strategy;
    const empty = setup({ script: ['{}'] }).strategy;
    await strategy.composePayload(SYSTEM, history1, []);
    await strategy.composePayload(SYSTEM, history2, []);
    await strategy.composePayload(SYSTEM, history3, []);
    const result = await strategy.undo('e1');
    expect([result.undone.id, ...result.alsoUndone.map((epoch) => epoch.id)]).toEqual(['e1', 'e3', 'e2']);
    expect(await other.getState()).toEqual({});
    const expected = bytes(await empty.composePayload(SYSTEM, history3, []));
    expect(bytes(await other.composePayload(SYSTEM, history3, []))).toBe(expected);
    expect(bytes(await strategy.composePayload(SYSTEM, history3, []))).toBe(expected);
    expect(await strategy.epochs()).toEqual([]);
  });

  it('refuses an epoch the session does not have with EpochNotFoundError, changing nothing', async () => {
    const { strategy } = setup({ script: [FIRST] });
    await expect(strategy.undo('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    await strategy.composePayload(SYSTEM, history1, []);
    await expect(strategy.undo('e2')).rejects.toThrow(/no epoch "e2" \(did you mean "e1"\?\)/);
    await strategy.undo('e1');
    await expect(strategy.undo('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    expect(await strategy.getState()).toEqual({});
  });

  it('an extraction whose epoch cannot be recorded stands, is reported, and is not listed', async () => {
    /** A store that refuses to keep what an epoch saved. */
    class NoEpochStore extends MemoryContextStore {
      override async set(key: StoreKey, value: unknown): Promise<void> {
        if (key.name.startsWith('epoch:')) throw new Error('disk full');
        return super.set(key, value);
      }
    }
    const { strategy, events } = setup({ store: new NoEpochStore(), script: [FIRST] });
    await strategy.composePayload(SYSTEM, history1, []);
    expect(await strategy.getState()).toEqual({ destination: 'Seattle', note: 'aisle' });
    expect(await strategy.epochs()).toEqual([]);
    expect(events.find((event) => event.name === 'strategy-warning')!.payload['message']).toMatch(
      /extraction stands but could not be recorded as an epoch.*disk full/,
    );
  });
});

describe('EntityExtractionStrategy#preview', () => {
  it(
    'names what the next payload leaves out, without storing, emitting or calling the model, and leaves the next ' +
      'payload as it would have been',
    async () => {
      const turns: ChatMessage[] = Array.from({ length: 12 }, (_, n) => [
        {
          role: 'user',
          content: `Turn ${n}: ${'I would like to travel somewhere warm this spring. '.repeat(2)}`,
        } as ChatMessage,
        {
          role: 'assistant',
          content: `Noted, turn ${n}. ${'Let me check the options for you. '.repeat(2)}`,
        } as ChatMessage,
      ]).flat();
      const config = { maxContextTokens: 400, reserveOutputTokens: 0 };
      const { strategy, events, llm } = setup({ script: [FIRST, SECOND], config });
      const twin = setup({ script: [FIRST, SECOND], config }).strategy;
      const history = turns.slice(0, -1);
      await strategy.composePayload(SYSTEM, history, []);
      await twin.composePayload(SYSTEM, history, []);
      const emitted = events.length;
      const preview = await strategy.preview(SYSTEM, turns, []);
      expect(events.length).toBe(emitted);
      expect(llm.callCount).toBe(1);
      expect(preview.notes[preview.notes.length - 1]).toBe(
        'no extraction before the next payload: no user message after message 22',
      );

      const payload = await strategy.composePayload(SYSTEM, turns, []);
      const twinPayload = await twin.composePayload(SYSTEM, turns, []);
      expect(bytes(payload)).toBe(bytes(twinPayload));
      expect(payload.stats.repeatedPrefixTokens).toBe(twinPayload.stats.repeatedPrefixTokens);
      expect(preview.dropped.length).toBeGreaterThan(0);
      expect(preview.dropped.map((item) => item.index)).toEqual(absent(payload, turns));
      expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
      expect(preview.notes[0]).toMatch(
        new RegExp(
          String.raw`^messages 0–\d+ left out \(dropped, recoverable from the entity-state\): older than ` +
            String.raw`the window: its values are in the entity state$`,
        ),
      );
      expect([preview.folded, preview.compacted]).toEqual([[], []]);
    },
  );

  it('names the messages the next extraction would read, which are those the extraction then reads', async () => {
    const { strategy, llm, events } = setup({ script: [FIRST, SECOND] });
    await strategy.composePayload(SYSTEM, history1, []);
    const preview = await strategy.preview(SYSTEM, history2, []);
    expect(preview.notes[preview.notes.length - 1]).toBe(
      'the next compose first extracts from messages 1–2 (1 user message, 0 tool results) with llm:scripted/gpt-4o; ' +
        "the state block it sends may then differ from this preview's",
    );
    expect(llm.callCount).toBe(1);
    expect(await strategy.getVersion()).toBe(1);
    await strategy.composePayload(SYSTEM, history2, []);
    expect(
      events.filter((event) => event.name === 'entities-updated').map((event) => event.payload['sourceMessageIndex']),
    ).toEqual([0, 2]);
    expect(String(llm.requests[1]!.messages[1]!.content)).toContain('<new_user_message index="2">');
  });
});
