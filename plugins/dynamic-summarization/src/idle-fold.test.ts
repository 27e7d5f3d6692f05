import {
  type ChatMessage,
  CtxkitEventBus,
  type CtxkitEventName,
  MemoryContextStore,
  ModelRegistry,
  type StrategyContext,
} from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';

import { createStrategy } from './create-summarization-strategy';
import { reservationTurn } from './test-support';

const SYSTEM = 'You are a helpful airline agent.';

function setup(idleCompaction: number | 'auto' | null, model = 'gpt-4o') {
  const bus = new CtxkitEventBus();
  const starts: Array<Record<string, unknown>> = [];
  bus.on('summary-start' as CtxkitEventName, (payload: unknown) => starts.push(payload as Record<string, unknown>));
  const counter = new HeuristicTokenCounter(model);
  const context: StrategyContext = {
    agentId: 'airline',
    sessionId: 'idle',
    strategyId: 'std-summarization-strategy',
    model,
    counter,
    counterFor: () => counter,
    models: new ModelRegistry(),
    store: new MemoryContextStore(),
    events: bus,
    llm: undefined,
    now: () => Date.now(),
  };
  // Four turns end below the threshold of ten: no fold at a turn's end. The next request does not
  // fit whole (about 540 tokens of history): its oldest turns go, or their summary stands in for them.
  const strategy = createStrategy(
    {
      model,
      maxContextTokens: 480,
      reserveOutputTokens: 0,
      summarizer: 'offline',
      threshold: 10,
      batchTurns: 2,
      idleCompaction,
    },
    context,
  );
  const history: ChatMessage[] = [1, 2, 3, 4].flatMap(reservationTurn);
  return { strategy, starts, history };
}

describe('idle folds (idleCompaction)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it(
    'folds the oldest batch once the session has been idle that long, below the threshold, and the next request ' +
      'that does not fit sends the summary',
    async () => {
      const { strategy, starts, history } = setup(60_000);
      await strategy.onTurnComplete(history);
      await strategy.whenIdle();
      expect(starts).toHaveLength(0);

      await jest.advanceTimersByTimeAsync(60_000);
      await strategy.whenIdle();
      expect(starts).toHaveLength(1);
      expect(starts[0]).toMatchObject({ trigger: 'idle', turns: 2 });

      const next = [...history, { role: 'user', content: 'And the fifth reservation?' } satisfies ChatMessage];
      const payload = await strategy.composePayload(SYSTEM, next, []);
      expect(payload.stats.sections.memory).toBeGreaterThan(0);
      expect(payload.stats.reductions.some((record) => record.action === 'summarized')).toBe(true);
      await strategy.dispose();
    },
  );

  it('without it, the same request drops those turns unsummarized', async () => {
    const { strategy, history } = setup(null);
    await strategy.onTurnComplete(history);
    await jest.advanceTimersByTimeAsync(60 * 60_000);
    await strategy.whenIdle();
    const payload = await strategy.composePayload(
      SYSTEM,
      [...history, { role: 'user', content: 'And the fifth reservation?' }],
      [],
    );
    expect(payload.stats.sections.memory).toBe(0);
    expect(payload.stats.reductions.some((record) => record.action === 'dropped')).toBe(true);
    await strategy.dispose();
  });

  it('never folds while a turn is served: a request before the idle time disarms it', async () => {
    const { strategy, starts, history } = setup(60_000);
    await strategy.onTurnComplete(history);
    await jest.advanceTimersByTimeAsync(59_000);
    await strategy.composePayload(SYSTEM, [...history, { role: 'user', content: 'Still there?' }], []);
    await jest.advanceTimersByTimeAsync(120_000);
    await strategy.whenIdle();
    expect(starts).toHaveLength(0);
    await strategy.dispose();
  });

  it('folds at most once per idle period', async () => {
    const { strategy, starts, history } = setup(60_000);
    await strategy.onTurnComplete(history);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    await strategy.whenIdle();
    expect(starts).toHaveLength(1);
    await strategy.dispose();
  });

  it(
    '"auto" waits the provider\'s cache lifetime less 30 seconds; off by default and for a provider with no known ' +
      'lifetime',
    async () => {
      const auto = setup('auto');
      await auto.strategy.onTurnComplete(auto.history);
      await jest.advanceTimersByTimeAsync(5 * 60_000 - 30_000 - 1);
      expect(auto.starts).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(1);
      await auto.strategy.whenIdle();
      expect(auto.starts).toHaveLength(1);
      await auto.strategy.dispose();

      for (const quiet of [setup(null), setup('auto', 'llama-3.1-8b')]) {
        await quiet.strategy.onTurnComplete(quiet.history);
        await jest.advanceTimersByTimeAsync(60 * 60_000);
        await quiet.strategy.whenIdle();
        expect(quiet.starts).toHaveLength(0);
        await quiet.strategy.dispose();
      }
    },
  );

  it('a disposed strategy folds nothing', async () => {
    const { strategy, starts, history } = setup(60_000);
    await strategy.onTurnComplete(history);
    await strategy.dispose();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(starts).toHaveLength(0);
  });
});
