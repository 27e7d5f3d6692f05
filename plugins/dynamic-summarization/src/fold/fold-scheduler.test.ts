import {
  type ChatMessage,
  type IContextStore,
  type ITokenCounter,
  LLMRequestError,
  MemoryContextStore,
  type StrategyContext,
} from '@ctxkit/core';
import { HeuristicTokenCounter, HistoryLedger, SerialQueue } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, type RecordedEvent } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { historyFingerprint } from '../history/history-fingerprint';
import { turnStarts } from '../history/turn-starts';
import { SUMMARIZATION_DEFAULTS } from '../summarization-config';
import type { Summarizer, SummarizerInput } from '../summarizer';
import type { SummaryRecord, SummaryState } from '../summary-state';
import { FOLD_CLAIM_GRACE_MS } from './fold-claim';
import { FoldScheduler, type FoldSchedulerOptions } from './fold-scheduler';

/** A summarizer whose answers the test scripts: a text, an error, or a promise it controls. */
class ScriptedSummarizer implements Summarizer {
  readonly name = 'scripted summarizer';
  readonly model = 'scripted';
  readonly offline = true;
  readonly inputs: SummarizerInput[] = [];
  constructor(
    private readonly answer: (input: SummarizerInput, call: number) => string | Promise<string> = (_input, call) =>
      `Summary ${call + 1}.`,
  ) {}
  async summarize(input: SummarizerInput): Promise<string> {
    this.inputs.push(input);
    return this.answer(input, this.inputs.length - 1);
  }
}

/** A turn: a user message, maybe a tool call with its result, an answer. */
function turn(n: number, withTool = n % 2 === 0): ChatMessage[] {
  const call = `call_${n}`;
  return [
    { role: 'user', content: `Question ${n}: what about booking ${1000 + n}? ${'detail '.repeat(n % 5)}` },
    ...(withTool
      ? ([
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: call, type: 'function', function: { name: 'lookup', arguments: `{"id":${n}}` } }],
          },
          { role: 'tool', tool_call_id: call, content: `booking ${1000 + n}: confirmed` },
        ] as ChatMessage[])
      : []),
    { role: 'assistant', content: `Booking ${1000 + n} is confirmed.` },
  ];
}

function conversation(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, index) => turn(index + 1)).flat();
}

interface Setup {
  scheduler: FoldScheduler;
  context: StrategyContext;
  events: RecordedEvent[];
  summarizer: ScriptedSummarizer;
  ledger: HistoryLedger;
  queue: SerialQueue;
}

function setup(
  options: {
    summarizer?: ScriptedSummarizer;
    config?: Partial<FoldSchedulerOptions['config']>;
    context?: Partial<StrategyContext>;
    counter?: ITokenCounter;
  } = {},
): Setup {
  const counter = options.counter ?? new HeuristicTokenCounter('gpt-4o');
  const { context, events } = createConformanceContext('fold', { counter, ...options.context }, undefined);
  const summarizer = options.summarizer ?? new ScriptedSummarizer();
  const ledger = new HistoryLedger(counter);
  const queue = new SerialQueue();
  const scheduler = new FoldScheduler({
    config: { ...SUMMARIZATION_DEFAULTS, threshold: 2, batchTurns: 2, ...options.config },
    context,
    counter,
    summarizer,
    ledger,
    available: 4000,
    queue,
  });
  return { scheduler, context, events, summarizer, ledger, queue };
}

/** What onTurnComplete does: load, re-sync, maybe start a fold; then wait for it. */
async function completeTurn(scheduler: FoldScheduler, history: ChatMessage[]): Promise<void> {
  if (await scheduler.load()) {
    scheduler.resyncIfStale(history);
    scheduler.maybeStartFold(history);
  }
  await scheduler.whenIdle();
}

const names = (events: RecordedEvent[]): string[] => events.map((event) => event.name);

/** Resolves once the summarizer has been asked `count` times (a fold asks after its claim is written). */
async function untilAsked(summarizer: ScriptedSummarizer, count: number): Promise<void> {
  for (let tick = 0; summarizer.inputs.length < count; tick++) {
    if (tick > 1000) throw new Error(`the summarizer was asked ${summarizer.inputs.length} times, not ${count}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The session's record as the store holds it. */
function storedRecord(context: StrategyContext): Promise<unknown> {
  return context.store.get({ agentId: context.agentId, sessionId: context.sessionId, kind: 'summary', name: 'buffer' });
}

/** A text with at least as many tokens as the batch it would replace. */
function longerThan(input: SummarizerInput): string {
  const replaced = input.counter.countMessages(input.messages);
  let text = 'word';
  while (input.counter.count(text) < replaced) text += ' word';
  return text;
}

describe('FoldScheduler', () => {
  it(
    'folds the oldest whole turns past the threshold into a new buffer, in the store, with start and end ' + 'events',
    async () => {
      const { scheduler, context, events, summarizer } = setup();
      const history = conversation(4);
      await completeTurn(scheduler, history);
      const state = scheduler.state!;
      const end = turnStarts(history)[2]!;
      expect(state).toMatchObject({
        version: 1,
        text: 'Summary 1.',
        coveredMessages: end,
        coveredTurns: 2,
        fingerprint: historyFingerprint(history, 0, end),
      });
      expect(await storedRecord(context)).toEqual({
        format: 2,
        summary: state,
        failures: { consecutiveFailures: 0, retryAt: 0, stoppedAt: null, lastAttemptTurn: 4 },
        fold: null,
      });
      expect(names(events)).toEqual(['summary-start', 'summary-end']);
      expect(events[1]!.payload).toMatchObject({
        turns: 2,
        messages: end,
        version: 1,
        offline: true,
        model: 'scripted',
      });
      const input = summarizer.inputs[0]!;
      expect(input).toMatchObject({ previousSummary: null, firstIndex: 0 });
      // The summarizer gets a copy of the batch, never the caller's messages.
      expect(input.messages).toEqual(history.slice(0, end));
      expect(input.messages[0]).not.toBe(history[0]);
    },
  );

  it("counts the batch on the caller's messages, whose counts are cached by identity, not on its copy", async () => {
    const base = new HeuristicTokenCounter('gpt-4o');
    const counted: Array<Readonly<ChatMessage>> = [];
    const counter: ITokenCounter = Object.assign(Object.create(base) as ITokenCounter, {
      countMessages: (messages: ReadonlyArray<Readonly<ChatMessage>>) => {
        counted.push(...messages);
        return base.countMessages(messages);
      },
    });
    const { scheduler } = setup({ counter });
    const history = conversation(4);
    await completeTurn(scheduler, history);
    const covered = scheduler.state!.coveredMessages;
    expect(counted.length).toBeGreaterThanOrEqual(covered);
    for (const message of counted) expect(history).toContain(message);
    expect(scheduler.state!.coveredTokens).toBe(base.countMessages(history.slice(0, covered)));
  });

  it('folds the previous summary with the next batch', async () => {
    const { scheduler, summarizer } = setup();
    await completeTurn(scheduler, conversation(4));
    const covered = scheduler.state!.coveredMessages;
    await completeTurn(scheduler, conversation(6));
    expect(summarizer.inputs[1]).toMatchObject({ previousSummary: 'Summary 1.', firstIndex: covered });
    expect(scheduler.state).toMatchObject({ version: 2, text: 'Summary 2.', coveredTurns: 4 });
    // It keeps what the summary it was folded from covered: a shorter history is compared with that.
    expect(scheduler.state!.earlierCoverage).toEqual([
      { coveredMessages: covered, fingerprint: historyFingerprint(conversation(4), 0, covered) },
    ]);
  });

  it('does nothing at or below the threshold while the room is not outgrown, then folds when it is', async () => {
    const { scheduler, summarizer } = setup({ config: { threshold: 100 } });
    const history = conversation(5);
    await completeTurn(scheduler, history);
    expect(summarizer.inputs).toHaveLength(0);
    scheduler.noteRoom({ room: 120, allowance: 60 });
    await completeTurn(scheduler, [...history, ...turn(6)]);
    expect(summarizer.inputs).toHaveLength(1);
    // The cap follows the room: its share less the summary block's wrapper, at least 64 tokens.
    expect(summarizer.inputs[0]!.maxTokens).toBeLessThanOrEqual(64);
  });

  it('runs one fold at a time and makes one attempt per turn', async () => {
    let release!: (text: string) => void;
    const summarizer = new ScriptedSummarizer(() => new Promise<string>((resolve) => (release = resolve)));
    const { scheduler } = setup({ summarizer, config: { retryBackoffMs: 0 } });
    const history = conversation(4);
    scheduler.maybeStartFold(history);
    scheduler.maybeStartFold(history);
    scheduler.maybeStartFold(conversation(5));
    expect(scheduler.running).toBe(true);
    await untilAsked(summarizer, 1);
    scheduler.maybeStartFold(conversation(5));
    await new Promise((resolve) => setImmediate(resolve));
    expect(summarizer.inputs).toHaveLength(1);
    release('The user looked up two reservations.');
    await scheduler.whenIdle();
    expect(scheduler.running).toBe(false);
    expect(scheduler.state?.version).toBe(1);
  });

  it.each([
    ['empty', () => '   ', /empty/],
    ['over its cap', () => 'word '.repeat(2000), /over the cap/],
    [
      'not smaller than what it replaces',
      (input: SummarizerInput) => longerThan(input),
      /not smaller than what it replaces/,
    ],
  ])('commits nothing and reports a summary that is %s', async (_label, answer, message) => {
    const { scheduler, events } = setup({
      summarizer: new ScriptedSummarizer(answer),
      config: { summaryMaxTokens: 512 },
    });
    await completeTurn(scheduler, conversation(4));
    expect(scheduler.state).toBeNull();
    const error = events.find((event) => event.name === 'summary-error')!;
    expect(error.payload).toMatchObject({
      error: { code: 'CTXKIT_LLM_RESPONSE_INVALID', message: expect.stringMatching(message) },
      consecutiveFailures: 1,
    });
  });

  it('times out a summarizer that never answers, aborting its signal', async () => {
    const summarizer = new ScriptedSummarizer(() => new Promise<string>(() => undefined));
    const { scheduler, events } = setup({ summarizer, config: { summaryTimeoutMs: 20 } });
    await completeTurn(scheduler, conversation(4));
    expect(summarizer.inputs[0]!.signal?.aborted).toBe(true);
    expect(events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({
      error: { code: 'CTXKIT_LLM_TIMEOUT' },
    });
    expect(scheduler.state).toBeNull();
  });

  it(
    're-syncs when the covered history was edited: drops the buffer, and a running fold commits nothing and is no ' +
      'failure',
    async () => {
      let release!: (text: string) => void;
      let calls = 0;
      const summarizer = new ScriptedSummarizer(() =>
        ++calls === 1 ? 'First.' : new Promise<string>((resolve) => (release = resolve)),
      );
      const { scheduler, events, context } = setup({ summarizer });
      await completeTurn(scheduler, conversation(4));
      expect(scheduler.state?.version).toBe(1);
      scheduler.maybeStartFold(conversation(6));
      expect(scheduler.running).toBe(true);
      await untilAsked(summarizer, 2);
      const edited = conversation(6);
      edited[0] = { role: 'user', content: 'An edited first question.' };
      scheduler.resyncIfStale(edited);
      release('Stale.');
      await scheduler.whenIdle();
      expect(scheduler.state).toBeNull();
      expect(summarizer.inputs[1]!.signal?.aborted).toBe(true);
      expect(names(events)).toContain('summary-resync');
      expect(names(events)).not.toContain('summary-error');
      expect(scheduler.consecutiveFailures).toBe(0);
      expect(await storedRecord(context)).toMatchObject({
        summary: null,
        fold: null,
        failures: { consecutiveFailures: 0 },
      });
    },
  );

  it(
    'keeps the buffer, a running fold and its claim for a history shorter than the buffer covers (a late turn ' +
      'report)',
    async () => {
      let release!: (text: string) => void;
      let calls = 0;
      const summarizer = new ScriptedSummarizer(() =>
        ++calls === 1 ? 'First.' : new Promise<string>((resolve) => (release = resolve)),
      );
      const { scheduler, events, context } = setup({ summarizer });
      await completeTurn(scheduler, conversation(4));
      scheduler.maybeStartFold(conversation(6));
      await untilAsked(summarizer, 2);
      const before = await storedRecord(context);
      expect(before).toMatchObject({ summary: { version: 1 }, fold: { id: expect.any(String) } });
      const late = conversation(1);
      await scheduler.load();
      scheduler.resyncIfStale(late);
      scheduler.maybeStartFold(late);
      expect(scheduler.isAheadOf(late)).toBe(true);
      expect(scheduler.summaryFor(late)).toBeNull();
      expect(scheduler.state?.version).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await storedRecord(context)).toEqual(before);
      release('Second.');
      await scheduler.whenIdle();
      expect(summarizer.inputs[1]!.signal?.aborted).toBe(false);
      expect(scheduler.state).toMatchObject({ version: 2, text: 'Second.' });
      expect(names(events)).toEqual(['summary-start', 'summary-end', 'summary-start', 'summary-end']);
    },
  );

  it('on dispose, aborts a running fold with a typed error and commits nothing', async () => {
    const summarizer = new ScriptedSummarizer(() => new Promise<string>(() => undefined));
    const { scheduler, events, context } = setup({ summarizer });
    scheduler.maybeStartFold(conversation(4));
    await untilAsked(summarizer, 1);
    await scheduler.dispose();
    const { agentId, sessionId, strategyId } = context;
    expect(summarizer.inputs[0]!.signal?.reason).toMatchObject({
      code: 'CTXKIT_DISPOSED',
      message: expect.stringContaining(
        `${strategyId} (background fold) for agent "${agentId}", session "${sessionId}" has been disposed.`,
      ),
    });
    expect(scheduler.state).toBeNull();
    expect(names(events)).toEqual(['summary-start']);
    // The claim is given up: the session's next fold (here or elsewhere) need not wait for it to expire.
    expect(await storedRecord(context)).toMatchObject({ summary: null, fold: null });
    scheduler.maybeStartFold(conversation(6));
    expect(scheduler.running).toBe(false);
  });

  it('commits nothing when disposed after the summary came back but before its commit ran', async () => {
    const { scheduler, events, queue, context } = setup();
    let unblock!: () => void;
    void queue.run(() => new Promise<void>((resolve) => (unblock = resolve)));
    scheduler.maybeStartFold(conversation(4));
    await new Promise((resolve) => setImmediate(resolve));
    const disposing = scheduler.dispose();
    unblock();
    await disposing;
    expect(scheduler.state).toBeNull();
    expect(await storedRecord(context)).toMatchObject({ summary: null, fold: null });
    expect(names(events)).toEqual(['summary-start']);
  });

  it('waits for a running fold at most the time it is given', async () => {
    let release!: (text: string) => void;
    const { scheduler } = setup({
      summarizer: new ScriptedSummarizer(() => new Promise<string>((resolve) => (release = resolve))),
    });
    scheduler.maybeStartFold(conversation(4));
    const started = Date.now();
    await scheduler.waitForFold(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(scheduler.running).toBe(true);
    release('The user looked up two reservations.');
    await scheduler.waitForFold(10_000);
    expect(scheduler.state?.version).toBe(1);
  });

  it('reports a store that fails to read, and counts a failed commit as a failed attempt', async () => {
    const store = new MemoryContextStore();
    store.getVersioned = async () => {
      throw new Error('store down');
    };
    const reading = setup({ context: { store } });
    expect(await reading.scheduler.load()).toBe(false);
    expect(reading.events[0]).toMatchObject({
      name: 'strategy-warning',
      payload: { message: expect.stringContaining('store down') },
    });

    const failingCommits = new MemoryContextStore();
    const setIfVersion = failingCommits.setIfVersion.bind(failingCommits);
    failingCommits.setIfVersion = async (key, value, expected) =>
      (value as SummaryRecord).summary !== null
        ? Promise.reject(new Error('disk full'))
        : setIfVersion(key, value, expected);
    const writing = setup({ context: { store: failingCommits } });
    await completeTurn(writing.scheduler, conversation(4));
    expect(writing.scheduler.state).toBeNull();
    expect(writing.events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({
      error: { message: 'disk full' },
      consecutiveFailures: 1,
    });
    expect(await storedRecord(writing.context)).toMatchObject({
      summary: null,
      fold: null,
      failures: { consecutiveFailures: 1 },
    });
  });

  it('starts no fold when its claim cannot be written, and says so', async () => {
    const store = Object.assign(new MemoryContextStore(), {
      setIfVersion: async () => Promise.reject(new Error('read-only replica')),
    });
    const { scheduler, summarizer, events } = setup({ context: { store } });
    await completeTurn(scheduler, conversation(4));
    expect(summarizer.inputs).toHaveLength(0);
    expect(events).toEqual([
      expect.objectContaining({
        name: 'strategy-warning',
        payload: expect.objectContaining({ message: expect.stringContaining('read-only replica') }),
      }),
    ]);
  });

  describe('two instances on one store (two processes serving one session)', () => {
    function pair(
      options: {
        first?: ScriptedSummarizer;
        second?: ScriptedSummarizer;
        config?: Partial<FoldSchedulerOptions['config']>;
        store?: IContextStore;
      } = {},
    ) {
      const store = options.store ?? new MemoryContextStore();
      const clock = { now: Date.UTC(2025, 0, 1) };
      const context = { store, now: () => clock.now };
      return {
        clock,
        store,
        a: setup({ summarizer: options.first, config: options.config, context }),
        b: setup({ summarizer: options.second, config: options.config, context }),
      };
    }

    it(
      'folds each batch once: a live claim keeps the other instance from folding the same turns, and it goes on ' +
        "from the first one's summary",
      async () => {
        let release!: (text: string) => void;
        const first = new ScriptedSummarizer(() => new Promise<string>((resolve) => (release = resolve)));
        const second = new ScriptedSummarizer((input) => `After ${input.previousSummary}`);
        const { a, b } = pair({ first, second, config: { retryBackoffMs: 0 } });
        const history = conversation(4);
        await a.scheduler.load();
        a.scheduler.maybeStartFold(history);
        await untilAsked(first, 1);
        // The other instance completes the same turn, and the next one, while the fold runs.
        await completeTurn(b.scheduler, history);
        await completeTurn(b.scheduler, conversation(5));
        expect(second.inputs).toHaveLength(0);
        release('Turns one and two.');
        await a.scheduler.whenIdle();
        await completeTurn(b.scheduler, conversation(6));
        expect(second.inputs).toHaveLength(1);
        expect(second.inputs[0]).toMatchObject({
          previousSummary: 'Turns one and two.',
          firstIndex: turnStarts(history)[2],
        });
        await b.scheduler.load();
        expect(b.scheduler.state).toMatchObject({ version: 2, text: 'After Turns one and two.', coveredTurns: 4 });
        await a.scheduler.load();
        expect(a.scheduler.state).toEqual(b.scheduler.state);
      },
    );

    it('discards a summary whose buffer another instance replaced meanwhile, instead of writing over it', async () => {
      let release!: (text: string) => void;
      const first = new ScriptedSummarizer(() => new Promise<string>((resolve) => (release = resolve)));
      const second = new ScriptedSummarizer(() => 'The second one.');
      const { a, b, clock, store } = pair({ first, second, config: { retryBackoffMs: 0, summaryTimeoutMs: 60_000 } });
      const history = conversation(4);
      await a.scheduler.load();
      a.scheduler.maybeStartFold(history);
      await untilAsked(first, 1);
      // The first instance stalls past its claim (a long pause): the other one takes the batch over.
      clock.now += 60_000 + FOLD_CLAIM_GRACE_MS + 1;
      await completeTurn(b.scheduler, conversation(5));
      expect(second.inputs).toHaveLength(1);
      release('The stalled one.');
      await a.scheduler.whenIdle();
      expect(names(a.events)).toEqual(['summary-start']);
      const stored = (await store.get({
        agentId: a.context.agentId,
        sessionId: a.context.sessionId,
        kind: 'summary',
        name: 'buffer',
      })) as SummaryRecord;
      expect(stored).toMatchObject({ summary: { version: 1, text: 'The second one.' }, fold: null });
    });

    it(
      'shares the failure accounting: the other instance waits for the back-off, and attempts stop for ' + 'both',
      async () => {
        const failing = () =>
          new ScriptedSummarizer(() =>
            Promise.reject(new LLMRequestError('HTTP 503', { client: 'scripted' }, { retryable: true })),
          );
        const first = failing();
        const second = failing();
        const { a, b, clock } = pair({ first, second, config: { maxConsecutiveFailures: 3, retryBackoffMs: 1000 } });
        let turns = 4;
        const next = (scheduler: FoldScheduler) => completeTurn(scheduler, conversation(turns++));
        await next(a.scheduler);
        expect(a.events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({
          consecutiveFailures: 1,
          retryAt: clock.now + 1000,
        });
        await next(b.scheduler); // within the back-off the first failure set
        expect(second.inputs).toHaveLength(0);
        clock.now += 1000;
        await next(b.scheduler);
        expect(b.events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({
          consecutiveFailures: 2,
        });
        clock.now += 2000;
        await next(a.scheduler);
        expect(a.events.filter((event) => event.name === 'summary-error')[1]!.payload).toMatchObject({
          consecutiveFailures: 3,
          retryAt: null,
        });
        for (let round = 0; round < 6; round++) {
          clock.now += 60_000;
          await next(round % 2 === 0 ? b.scheduler : a.scheduler);
        }
        expect(first.inputs.length + second.inputs.length).toBe(3);
        await b.scheduler.load();
        expect(b.scheduler.consecutiveFailures).toBe(3);
        expect(b.scheduler.stopped).toBe(true);
      },
    );

    it('reads the buffer an older version wrote (a bare summary) and folds onto it', async () => {
      const store = new MemoryContextStore();
      const history = conversation(6);
      const end = turnStarts(history)[2]!;
      const legacy: SummaryState = {
        format: 1,
        version: 3,
        text: 'Written by an older version.',
        coveredMessages: end,
        coveredTurns: 2,
        fingerprint: historyFingerprint(history, 0, end),
        summaryTokens: 6,
        coveredTokens: 100,
        summarizer: { name: 'offline', model: 'none', offline: true },
        updatedAt: 0,
      };
      const { scheduler, summarizer, context } = setup({ context: { store } });
      await store.set(
        { agentId: context.agentId, sessionId: context.sessionId, kind: 'summary', name: 'buffer' },
        legacy,
      );
      await completeTurn(scheduler, history);
      expect(summarizer.inputs[0]).toMatchObject({ previousSummary: 'Written by an older version.', firstIndex: end });
      expect(await storedRecord(context)).toMatchObject({ format: 2, summary: { version: 4, coveredTurns: 4 } });
    });

    it('still folds on a store without compare-and-set (the last writer wins there)', async () => {
      const store = Object.assign(new MemoryContextStore(), { getVersioned: undefined, setIfVersion: undefined });
      const { scheduler } = setup({ context: { store } });
      await completeTurn(scheduler, conversation(4));
      expect(scheduler.state).toMatchObject({ version: 1, text: 'Summary 1.' });
      await completeTurn(scheduler, conversation(6));
      expect(scheduler.state).toMatchObject({ version: 2, coveredTurns: 4 });
    });
  });

  it(
    'keeps the buffer on whole turns, the newest turn verbatim, and the unsummarized turns within the ' + 'threshold',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.boolean(), { minLength: 1, maxLength: 14 }),
          fc.integer({ min: 1, max: 4 }),
          fc.integer({ min: 1, max: 4 }),
          async (tools, threshold, batchTurns) => {
            const { scheduler } = setup({ config: { threshold, batchTurns } });
            let history: ChatMessage[] = [];
            for (const [index, withTool] of tools.entries()) {
              history = [...history, ...turn(index + 1, withTool)];
              await completeTurn(scheduler, history);
              const state = scheduler.state;
              const starts = turnStarts(history);
              const covered = state?.coveredMessages ?? 0;
              if (state) {
                expect(history[covered]!.role).toBe('user');
                expect(covered).toBeLessThanOrEqual(starts[starts.length - 1]!);
                expect(state.coveredTurns).toBe(turnStarts(history, 0, covered).length);
                expect(state.fingerprint).toBe(historyFingerprint(history, 0, covered));
              }
              expect(turnStarts(history, covered).length).toBeLessThanOrEqual(threshold);
            }
          },
        ),
        { numRuns: 40, seed: 20250101 },
      );
    },
  );
});
