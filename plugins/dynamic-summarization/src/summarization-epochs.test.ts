import {
  type ChatMessage,
  EpochNotFoundError,
  type IContextStore,
  type LLMPayload,
  MemoryContextStore,
  type StoreKey,
} from '@ctxkit/core';
import { createConformanceContext, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import { reservationTurn } from './test-support';

const SYSTEM = 'You are a helpful airline agent.';

/** The first `turns` turns, the same message objects every time (as a host's growing history). */
const ALL_TURNS = Array.from({ length: 8 }, (_, index) => reservationTurn(index + 1)).flat();
const conversation = (turns: number): ChatMessage[] => ALL_TURNS.slice(0, turns * 4);

const summaryReply = (text: string): string => `<summary>\n${text}\n</summary>`;

/** Folds two turns once more than two are unsummarized; the payload cannot hold four turns, so the summary shows. */
/**
 * Windows that drop only what must go (cutBackRatio 1): these cases compare payloads across instances
 * and with sessions that never folded, and a cut back holds each instance's own window start.
 */
const CONFIG = {
  threshold: 2,
  batchTurns: 2,
  maxContextTokens: 450,
  reserveOutputTokens: 0,
  checkSummaries: false,
  retryBackoffMs: 0,
  cutBackRatio: 1,
};

function setup(options: { script?: ScriptStep[]; store?: IContextStore; sessionId?: string } = {}) {
  const llm = new ScriptedLLMClient(
    options.script ?? [
      summaryReply('The user asked about the first reservations.'),
      summaryReply('The user asked about reservations one to four.'),
    ],
  );
  const { context, events } = createConformanceContext(
    options.sessionId ?? 'session-1',
    {
      agentId: 'airline',
      strategyId: 'std-summarization-strategy',
      store: options.store ?? new MemoryContextStore(),
      llm,
    },
    undefined,
  );
  const strategy = createStrategy(CONFIG, context);
  return { strategy, events, llm, context };
}

/** What the payload's messages are, byte for byte. */
const bytes = (payload: LLMPayload): string => JSON.stringify(payload.messages);

/** Indexes of the history messages the payload does not carry as they are. */
function absent(payload: LLMPayload, history: ChatMessage[]): number[] {
  const sent = new Set<unknown>(payload.messages);
  return history.flatMap((message, index) => (sent.has(message) ? [] : [index]));
}

async function turnEnd(strategy: ReturnType<typeof setup>['strategy'], history: ChatMessage[]): Promise<void> {
  await strategy.onTurnComplete(history);
  await strategy.whenIdle();
}

describe('SummarizationStrategy epochs', () => {
  it(
    'records every committed fold as an epoch: kind, range, tokens, a description in plain words, and an ' +
      'epoch-recorded event',
    async () => {
      const { strategy, events } = setup();
      const history = conversation(4);
      await turnEnd(strategy, history);
      const [epoch, ...more] = await strategy.epochs();
      expect(more).toEqual([]);
      const summary = (await strategy.getSummaryState())!;
      expect(epoch).toMatchObject({
        id: 'e1',
        kind: 'fold',
        turn: 4,
        range: { from: 0, to: 8 },
        tokensAfter: summary.summaryTokens,
        tokensBefore: summary.coveredTokens,
      });
      expect(epoch!.description).toBe(
        `folded messages 0–7 (2 turns, ${summary.coveredTokens.toLocaleString('en-US')} tokens) into the summary ` +
          `(v1, ${summary.summaryTokens} tokens)`,
      );
      const recorded = events.filter((event) => event.name === 'epoch-recorded');
      expect(recorded.map((event) => event.payload)).toEqual([
        { agentId: 'airline', sessionId: 'session-1', strategyId: 'std-summarization-strategy', turn: 4, epoch },
      ]);
      // Recorded with the commit, before the fold reports its end.
      expect(
        events.map((event) => event.name).filter((name) => name === 'summary-end' || name === 'epoch-recorded'),
      ).toEqual(['epoch-recorded', 'summary-end']);
    },
  );

  it(
    'undo writes the summary from before the fold back: the next payload for the same history is the one before ' +
      'the fold, byte for byte, in every instance on the store',
    async () => {
      const store = new MemoryContextStore();
      const { strategy, events } = setup({ store });
      const other = setup({ store }).strategy;
      const history = conversation(4);
      const before = await strategy.composePayload(SYSTEM, history, []);
      await turnEnd(strategy, history);
      const folded = await strategy.composePayload(SYSTEM, history, []);
      expect(bytes(folded)).not.toBe(bytes(before));
      expect(bytes(await other.composePayload(SYSTEM, history, []))).toBe(bytes(folded));

      const result = await strategy.undo('e1');
      expect(result).toEqual({ undone: expect.objectContaining({ id: 'e1', kind: 'fold' }), alsoUndone: [] });
      expect(bytes(await strategy.composePayload(SYSTEM, history, []))).toBe(bytes(before));
      expect(bytes(await other.composePayload(SYSTEM, history, []))).toBe(bytes(before));
      expect(await strategy.getSummaryState()).toBeNull();
      expect(await strategy.epochs()).toEqual([]);
      expect(events.find((event) => event.name === 'epoch-undone')!.payload).toEqual({
        agentId: 'airline',
        sessionId: 'session-1',
        strategyId: 'std-summarization-strategy',
        turn: 4,
        epoch: result.undone,
        alsoUndone: [],
        historyRestored: false,
      });
    },
  );

  it('undoing an older fold undoes the later ones with it', async () => {
    const { strategy } = setup();
    const reference = setup().strategy;
    await turnEnd(strategy, conversation(4));
    const afterFirst = await strategy.composePayload(SYSTEM, conversation(6), []);
    await turnEnd(strategy, conversation(6));
    expect((await strategy.epochs()).map((epoch) => [epoch.id, epoch.range])).toEqual([
      ['e1', { from: 0, to: 8 }],
      ['e2', { from: 8, to: 16 }],
    ]);
    expect(bytes(await strategy.composePayload(SYSTEM, conversation(6), []))).not.toBe(bytes(afterFirst));

    const result = await strategy.undo('e1');
    expect([result.undone.id, ...result.alsoUndone.map((epoch) => epoch.id)]).toEqual(['e1', 'e2']);
    expect(await strategy.getSummaryState()).toBeNull();
    // The payload of a session that never folded.
    expect(bytes(await strategy.composePayload(SYSTEM, conversation(6), []))).toBe(
      bytes(await reference.composePayload(SYSTEM, conversation(6), [])),
    );
    await expect(strategy.undo('e2')).rejects.toBeInstanceOf(EpochNotFoundError);
  });

  it('undoing the newest fold keeps the older one', async () => {
    const { strategy } = setup();
    await turnEnd(strategy, conversation(4));
    const afterFirst = await strategy.composePayload(SYSTEM, conversation(6), []);
    await turnEnd(strategy, conversation(6));
    await strategy.undo('e2');
    expect(bytes(await strategy.composePayload(SYSTEM, conversation(6), []))).toBe(bytes(afterFirst));
    expect((await strategy.epochs()).map((epoch) => epoch.id)).toEqual(['e1']);
    expect((await strategy.getSummaryState())!.version).toBe(1);
  });

  it('refuses an epoch the session does not have with EpochNotFoundError, changing nothing', async () => {
    const { strategy } = setup();
    await expect(strategy.undo('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    await turnEnd(strategy, conversation(4));
    await expect(strategy.undo('e7')).rejects.toThrow(/no epoch "e7"/);
    expect((await strategy.getSummaryState())!.version).toBe(1);
    expect((await strategy.epochs()).map((epoch) => epoch.id)).toEqual(['e1']);
  });

  it('folds the same turns again at the next turn end that finds them due, as a new epoch', async () => {
    const { strategy } = setup({ script: [summaryReply('First fold.'), summaryReply('Folded again.')] });
    await turnEnd(strategy, conversation(4));
    await strategy.undo('e1');
    await turnEnd(strategy, conversation(5));
    const epochs = await strategy.epochs();
    expect(epochs.map((epoch) => [epoch.id, epoch.range])).toEqual([['e2', { from: 0, to: 8 }]]);
    expect((await strategy.getSummaryState())!.text).toBe('Folded again.');
  });

  it(
    'an undo that wrote the summary back but never took its epoch (its process died) leaves no message folded ' +
      'twice in the log once the turns are folded again',
    async () => {
      /**
       * A store that refuses the next write of the epoch index once armed, as a process killed right after writing the
       * summary back.
       */
      class DiesBeforeTakeStore extends MemoryContextStore {
        armed = false;
        override async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined) {
          if (this.armed && key.name === 'epochs') {
            this.armed = false;
            throw new Error('process killed');
          }
          return super.setIfVersion(key, value, expectedVersion);
        }
      }
      const store = new DiesBeforeTakeStore();
      const { strategy } = setup({ store, script: [summaryReply('First fold.'), summaryReply('Folded again.')] });
      await turnEnd(strategy, conversation(4));
      store.armed = true;
      await expect(strategy.undo('e1')).rejects.toThrow('process killed');
      // The summary from before the fold is back; the log still names the fold.
      expect(await strategy.getSummaryState()).toBeNull();
      expect((await strategy.epochs()).map((epoch) => epoch.id)).toEqual(['e1']);

      await turnEnd(strategy, conversation(5));
      expect((await strategy.epochs()).map((epoch) => [epoch.id, epoch.range])).toEqual([['e2', { from: 0, to: 8 }]]);
      expect((await strategy.getSummaryState())!.text).toBe('Folded again.');
      await strategy.undo('e2');
      expect(await strategy.getSummaryState()).toBeNull();
      expect(await strategy.epochs()).toEqual([]);
    },
  );

  it(
    'an undo during which another instance folds onto the summary written back (and takes the undone epoch out) ' +
      'still succeeds, and the log names the new fold alone',
    async () => {
      /** Runs `between` right after the next write of the summary record once armed: between an undo's two writes. */
      class InterleavingStore extends MemoryContextStore {
        between: (() => Promise<void>) | undefined;
        override async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined) {
          const result = await super.setIfVersion(key, value, expectedVersion);
          const between = key.name === 'buffer' ? this.between : undefined;
          this.between = undefined;
          if (between) await between();
          return result;
        }
      }
      const store = new InterleavingStore();
      const a = setup({ store, script: [summaryReply('First fold.')] });
      const b = setup({ store, script: [summaryReply('Folded again.')] });
      await turnEnd(a.strategy, conversation(4));
      store.between = () => turnEnd(b.strategy, conversation(5));
      const result = await a.strategy.undo('e1');
      expect(result.undone).toMatchObject({ id: 'e1', range: { from: 0, to: 8 } });
      expect((await a.strategy.epochs()).map((epoch) => [epoch.id, epoch.range])).toEqual([['e2', { from: 0, to: 8 }]]);
      expect((await a.strategy.getSummaryState())!.text).toBe('Folded again.');
    },
  );

  it('aborts a fold running when an undo lands: it commits nothing', async () => {
    const { strategy, llm } = setup({
      script: [summaryReply('First fold.'), { reply: summaryReply('Slow fold.'), delayMs: 300 }],
    });
    await turnEnd(strategy, conversation(4));
    await strategy.onTurnComplete(conversation(6));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(llm.callCount).toBe(2);
    await strategy.undo('e1');
    await strategy.whenIdle();
    expect(await strategy.getSummaryState()).toBeNull();
    expect(await strategy.epochs()).toEqual([]);
  });

  it('a fold whose epoch cannot be recorded stands, is reported, and is not listed', async () => {
    /** A store that refuses to keep what an epoch saved. */
    class NoEpochStore extends MemoryContextStore {
      override async set(key: StoreKey, value: unknown): Promise<void> {
        if (key.name.startsWith('epoch:')) throw new Error('disk full');
        return super.set(key, value);
      }
    }
    const { strategy, events } = setup({ store: new NoEpochStore() });
    await turnEnd(strategy, conversation(4));
    expect((await strategy.getSummaryState())!.version).toBe(1);
    expect(await strategy.epochs()).toEqual([]);
    expect(events.map((event) => event.name)).toContain('summary-end');
    expect(events.find((event) => event.name === 'strategy-warning')!.payload['message']).toMatch(
      /fold of messages 0–7 stands but could not be recorded as an epoch.*disk full/,
    );
  });
});

describe('SummarizationStrategy#preview', () => {
  it(
    'names what the next payload leaves out and what the next fold folds, without storing, emitting or calling the ' +
      'model',
    async () => {
      const { strategy, events, llm } = setup();
      const twin = setup().strategy;
      const history = conversation(4);
      const preview = await strategy.preview(SYSTEM, history, []);
      expect(events).toEqual([]);
      expect(llm.callCount).toBe(0);
      expect(await strategy.getSummaryState()).toBeNull();

      const payload = await strategy.composePayload(SYSTEM, history, []);
      const twinPayload = await twin.composePayload(SYSTEM, history, []);
      expect(bytes(payload)).toBe(bytes(twinPayload));
      // Not remembered as the previous payload either.
      expect(payload.stats.repeatedPrefixTokens).toBe(twinPayload.stats.repeatedPrefixTokens);
      expect(preview.dropped.length).toBeGreaterThan(0);
      expect(preview.dropped.map((item) => item.index)).toEqual(absent(payload, history));
      expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
      expect(preview.folded.map((item) => item.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(preview.folded[0]).toMatchObject({
        role: 'user',
        excerpt: 'Turn 1: please look up reservation RES1001 for user user_1.',
      });
      expect(preview.notes).toContain(
        `the next turn end folds messages 0–7 (2 ` +
          `turns, ${preview.folded.reduce((sum, item) => sum + item.tokens, 0)} tokens) into the summary, in the ` +
          `background (scripted (gpt-4o))`,
      );

      await turnEnd(strategy, history);
      expect((await strategy.epochs())[0]!.range).toEqual({
        from: preview.folded[0]!.index,
        to: preview.folded[preview.folded.length - 1]!.index + 1,
      });
    },
  );

  it(
    'after a fold: the summarized messages count as left out, and the next fold is named or said not to be ' + 'due',
    async () => {
      const { strategy } = setup();
      await turnEnd(strategy, conversation(4));
      const preview = await strategy.preview(SYSTEM, conversation(4), []);
      const payload = await strategy.composePayload(SYSTEM, conversation(4), []);
      expect(preview.dropped.map((item) => item.index)).toEqual(absent(payload, conversation(4)));
      expect(
        preview.notes.some((note) =>
          /^messages 0–\d+ left out \(summarized, recoverable from the summary\): folded into summary v1$/.test(note),
        ),
      ).toBe(true);
      expect(preview.folded).toEqual([]);
      expect(preview.notes).toContain(
        'no fold at the next turn end: a fold was already attempted in turn 4 (one attempt a turn)',
      );

      const later = await strategy.preview(SYSTEM, conversation(7), []);
      expect(later.folded.map((item) => item.index)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
      const fresh = await setup().strategy.preview(SYSTEM, conversation(1), []);
      expect(fresh.notes).toContain(
        'no fold at the next turn end: 1 unsummarized turn (a fold starts past 2, or once they outgrow the room ' +
          'beside the summary)',
      );
    },
  );

  it('says a stale summary would be dropped, and leaves it in the store', async () => {
    const { strategy, events } = setup();
    await turnEnd(strategy, conversation(4));
    const emitted = events.length;
    const edited = [{ role: 'user', content: 'A different start.' } as ChatMessage, ...conversation(4).slice(1)];
    const preview = await strategy.preview(SYSTEM, edited, []);
    expect(preview.notes[preview.notes.length - 2]).toBe(
      'the summary no longer matches the start of the history: the next compose drops it (summary-resync) and sends ' +
        'the history alone',
    );
    expect(events.length).toBe(emitted);
    expect((await strategy.getSummaryState())!.version).toBe(1);
  });
});
