import fc from 'fast-check';
import { SerialQueue, HeuristicTokenCounter, HistoryLedger, MemoryContextStore, type ChatMessage, type StrategyContext, type TokenCounter } from '@ctxkit/core';
import { createConformanceContext, type RecordedEvent } from '@ctxkit/core/testing';
import { historyFingerprint } from '../history/history-fingerprint';
import { turnStarts } from '../history/turn-starts';
import { SUMMARIZATION_DEFAULTS } from '../summarization-config';
import type { Summarizer, SummarizerInput } from '../summarizer';
import { FoldScheduler, type FoldSchedulerOptions } from './fold-scheduler';

/** A summarizer whose answers the test scripts: a text, an error, or a promise it controls. */
class ScriptedSummarizer implements Summarizer {
  readonly name = 'scripted summarizer';
  readonly model = 'scripted';
  readonly offline = true;
  readonly inputs: SummarizerInput[] = [];
  constructor(private readonly answer: (input: SummarizerInput, call: number) => string | Promise<string> = (_input, call) => `Summary ${call + 1}.`) {}
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
          { role: 'assistant', content: null, tool_calls: [{ id: call, type: 'function', function: { name: 'lookup', arguments: `{"id":${n}}` } }] },
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

function setup(options: { summarizer?: ScriptedSummarizer; config?: Partial<FoldSchedulerOptions['config']>; context?: Partial<StrategyContext>; counter?: TokenCounter } = {}): Setup {
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

/** A text with at least as many tokens as the batch it would replace. */
function longerThan(input: SummarizerInput): string {
  const replaced = input.counter.countMessages(input.messages);
  let text = 'word';
  while (input.counter.count(text) < replaced) text += ' word';
  return text;
}

describe('FoldScheduler', () => {
  it('folds the oldest whole turns past the threshold into a new buffer, in the store, with start and end events', async () => {
    const { scheduler, context, events, summarizer } = setup();
    const history = conversation(4);
    await completeTurn(scheduler, history);
    const state = scheduler.state!;
    const end = turnStarts(history)[2]!;
    expect(state).toMatchObject({ version: 1, text: 'Summary 1.', coveredMessages: end, coveredTurns: 2, fingerprint: historyFingerprint(history, 0, end) });
    expect(await context.store.get({ agentId: context.agentId, sessionId: context.sessionId, kind: 'summary', name: 'buffer' })).toEqual(state);
    expect(names(events)).toEqual(['summary-start', 'summary-end']);
    expect(events[1]!.payload).toMatchObject({ turns: 2, messages: end, version: 1, offline: true, model: 'scripted' });
    const input = summarizer.inputs[0]!;
    expect(input).toMatchObject({ previousSummary: null, firstIndex: 0 });
    // The summarizer gets a copy of the batch, never the caller's messages.
    expect(input.messages).toEqual(history.slice(0, end));
    expect(input.messages[0]).not.toBe(history[0]);
  });

  it("counts the batch on the caller's messages, whose counts are cached by identity, not on its copy", async () => {
    const base = new HeuristicTokenCounter('gpt-4o');
    const counted: Array<Readonly<ChatMessage>> = [];
    const counter: TokenCounter = Object.assign(Object.create(base) as TokenCounter, {
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
    expect(summarizer.inputs).toHaveLength(1);
    release('Done.');
    await scheduler.whenIdle();
    expect(scheduler.running).toBe(false);
    expect(scheduler.state?.version).toBe(1);
  });

  it.each([
    ['empty', () => '   ', /empty/],
    ['over its cap', () => 'word '.repeat(2000), /over the cap/],
    ['not smaller than what it replaces', (input: SummarizerInput) => longerThan(input), /not smaller than what it replaces/],
  ])('commits nothing and reports a summary that is %s', async (_label, answer, message) => {
    const { scheduler, events } = setup({ summarizer: new ScriptedSummarizer(answer), config: { summaryMaxTokens: 512 } });
    await completeTurn(scheduler, conversation(4));
    expect(scheduler.state).toBeNull();
    const error = events.find((event) => event.name === 'summary-error')!;
    expect(error.payload).toMatchObject({ error: { code: 'CTXKIT_LLM_RESPONSE_INVALID', message: expect.stringMatching(message) }, consecutiveFailures: 1 });
  });

  it('times out a summarizer that never answers, aborting its signal', async () => {
    const summarizer = new ScriptedSummarizer(() => new Promise<string>(() => undefined));
    const { scheduler, events } = setup({ summarizer, config: { summaryTimeoutMs: 20 } });
    await completeTurn(scheduler, conversation(4));
    expect(summarizer.inputs[0]!.signal?.aborted).toBe(true);
    expect(events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({ error: { code: 'CTXKIT_LLM_TIMEOUT' } });
    expect(scheduler.state).toBeNull();
  });

  it('re-syncs when the covered history was edited: drops the buffer, and a running fold commits nothing and is no failure', async () => {
    let release!: (text: string) => void;
    let calls = 0;
    const summarizer = new ScriptedSummarizer(() => (++calls === 1 ? 'First.' : new Promise<string>((resolve) => (release = resolve))));
    const { scheduler, events, context } = setup({ summarizer });
    await completeTurn(scheduler, conversation(4));
    expect(scheduler.state?.version).toBe(1);
    scheduler.maybeStartFold(conversation(6));
    expect(scheduler.running).toBe(true);
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
    await Promise.resolve();
    expect(await context.store.get({ agentId: context.agentId, sessionId: context.sessionId, kind: 'summary', name: 'buffer' })).toBeUndefined();
  });

  it('re-syncs when the history is shorter than what the buffer covers', async () => {
    const { scheduler, events } = setup();
    await completeTurn(scheduler, conversation(4));
    scheduler.resyncIfStale(conversation(1));
    expect(scheduler.state).toBeNull();
    expect(events.find((event) => event.name === 'summary-resync')!.payload.reason).toMatch(/the summary covers/);
  });

  it('on dispose, aborts a running fold with a typed error and commits nothing', async () => {
    const summarizer = new ScriptedSummarizer(() => new Promise<string>(() => undefined));
    const { scheduler, events } = setup({ summarizer });
    scheduler.maybeStartFold(conversation(4));
    await scheduler.dispose();
    expect(summarizer.inputs[0]!.signal?.reason).toMatchObject({ code: 'CTXKIT_DISPOSED' });
    expect(scheduler.state).toBeNull();
    expect(names(events)).toEqual(['summary-start']);
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
    expect(await context.store.get({ agentId: context.agentId, sessionId: context.sessionId, kind: 'summary', name: 'buffer' })).toBeUndefined();
    expect(names(events)).toEqual(['summary-start']);
  });

  it('waits for a running fold at most the time it is given', async () => {
    let release!: (text: string) => void;
    const { scheduler } = setup({ summarizer: new ScriptedSummarizer(() => new Promise<string>((resolve) => (release = resolve))) });
    scheduler.maybeStartFold(conversation(4));
    const started = Date.now();
    await scheduler.waitForFold(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(scheduler.running).toBe(true);
    release('Done.');
    await scheduler.waitForFold(10_000);
    expect(scheduler.state?.version).toBe(1);
  });

  it('reports a store that fails to read, and counts a failed write as a failed attempt', async () => {
    const store = new MemoryContextStore();
    store.get = async () => {
      throw new Error('store down');
    };
    const reading = setup({ context: { store } });
    expect(await reading.scheduler.load()).toBe(false);
    expect(reading.events[0]).toMatchObject({ name: 'strategy-warning', payload: { message: expect.stringContaining('store down') } });

    const writing = setup({ context: { store: Object.assign(new MemoryContextStore(), { set: async () => Promise.reject(new Error('disk full')) }) } });
    await completeTurn(writing.scheduler, conversation(4));
    expect(writing.scheduler.state).toBeNull();
    expect(writing.events.find((event) => event.name === 'summary-error')!.payload).toMatchObject({ error: { message: 'disk full' }, consecutiveFailures: 1 });
  });

  it('keeps the buffer on whole turns, the newest turn verbatim, and the unsummarized turns within the threshold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), async (tools, threshold, batchTurns) => {
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
      }),
      { numRuns: 40, seed: 20250101 },
    );
  });
});
