import {
  type ChatMessage,
  ErrorCodes,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type LLMPayload,
  LLMRequestError,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import {
  createConformanceContext,
  freezeDeep,
  loadConversations,
  type RecordedEvent,
  ScriptedLLMClient,
} from '@ctxkit/core/testing';

import { SUMMARY_REPLY } from './test-support';
import { createStrategy } from './tool-output-cache-strategy';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

/** A model that never answers, as over a dead connection, and ends a call when its signal aborts. */
class UnresponsiveLLMClient implements ILLMClient {
  readonly name = 'unresponsive';
  readonly defaultModel = 'unresponsive-model';
  readonly offline = false;
  calls = 0;
  /** The abort signal of each call. */
  readonly signals: Array<AbortSignal | undefined> = [];

  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.calls++;
    this.signals.push(request.signal);
    return new Promise<LLMCompletion>((_resolve, reject) => {
      request.signal?.addEventListener('abort', () => reject(request.signal!.reason), { once: true });
    });
  }
}

interface CompactionStats {
  count: number;
  skipped: { reason: string; message: string; retryAt: number | null } | null;
  failedCallsInARow: number;
  lastError: { code: string } | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves once `events` holds `count` events named `name` (polling: the strategy emits them from the background). */
async function eventsNamed(
  events: RecordedEvent[],
  name: string,
  count: number,
): Promise<Array<Record<string, unknown>>> {
  const named = () => events.filter((event) => event.name === name).map((event) => event.payload);
  while (named().length < count) await sleep(5);
  return named();
}

/** A tau-bench airline conversation, composed at every model call of its agent (before each assistant message). */
const record = loadConversations('tau-bench-airline').find(
  (candidate) => candidate.id === 'tau-bench/airline/gpt-4o/task-3/trial-0',
)!;
const modelCalls = record.history.flatMap((message, index) =>
  index > 0 && message.role === 'assistant' ? [index] : [],
);

/**
 * The session of one test: the strategy on a context with a clock the test moves, and a twin session
 * without automatic compaction (the same tools offered) that composes every history first, so that
 * the time compaction adds to composePayload is measured apart from what composing costs.
 */
function session(config: ToolOutputCacheStrategyConfig, llm: ILLMClient) {
  const clock = { now: Date.UTC(2025, 0, 1) };
  const overrides = { agentId: 'agent-1', strategyId: 'std-tool-output-cache-strategy', llm, now: () => clock.now };
  const { context, events } = createConformanceContext('session-1', overrides, undefined);
  const strategy = createStrategy(config, context);
  const twin = createStrategy(
    { ...config, compaction: { ...config.compaction, auto: false } },
    createConformanceContext('session-1', overrides, undefined).context,
  );
  const limit = config.maxContextTokens! - config.reserveOutputTokens!;
  const timed = async (composer: typeof strategy, history: ChatMessage[]) => {
    const started = performance.now();
    const payload = await composer.composePayload(record.systemPrompt, history, record.tools ?? []);
    return { payload, ms: performance.now() - started };
  };
  /**
   * Composes the history up to `length` and checks the payload; `added`: the time composePayload took
   * beyond the twin's; `withoutCompaction`: the twin's payload, composed without automatic compaction.
   */
  const compose = async (
    length: number,
  ): Promise<{ payload: LLMPayload; added: number; compaction: CompactionStats; withoutCompaction: LLMPayload }> => {
    const history: ChatMessage[] = freezeDeep(record.history.slice(0, length));
    const without = await timed(twin, history);
    const { payload, ms } = await timed(strategy, history);
    expect(
      context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
    ).toBeLessThanOrEqual(limit);
    expect(findPayloadProblems(payload.messages)).toEqual([]);
    return {
      payload,
      added: ms - without.ms,
      compaction: payload.stats.extra!.compaction as CompactionStats,
      withoutCompaction: without.payload,
    };
  };
  return { strategy, context, events, clock, compose };
}

describe('ToolOutputCacheStrategy with a compaction model that does not answer', () => {
  const MAX_WAIT_MS = 150;
  const TIMEOUT_MS = 600;
  const BACKOFF_MS = 60_000;
  /** What composePayload may add to a payload beyond the wait it is allowed. */
  const AT_ONCE_MS = 50;
  const config: ToolOutputCacheStrategyConfig = {
    model: 'gpt-4o',
    maxContextTokens: 4000,
    reserveOutputTokens: 512,
    compaction: { thresholdRatio: 0.5, timeoutMs: TIMEOUT_MS, maxWaitMs: MAX_WAIT_MS, failureBackoffMs: BACKOFF_MS },
  };

  beforeAll(async () => {
    // The replay once without compaction, so that the times measured are not the first run's.
    const { compose } = session({ ...config, compaction: { enabled: false } }, new UnresponsiveLLMClient());
    for (const length of modelCalls) await compose(length);
  });

  it(
    'waits at most compaction.maxWaitMs once, composes at once while the model backs off, says why, and tries ' +
      'again after the back-off (tau-bench airline at 4,000)',
    async () => {
      const llm = new UnresponsiveLLMClient();
      const { strategy, events, clock, compose } = session(config, llm);
      let next = 0;

      // The payload that starts the compaction waits for it at most maxWaitMs, then is composed without it.
      let first: Awaited<ReturnType<typeof compose>> | undefined;
      while (llm.calls === 0 && next < modelCalls.length) first = await compose(modelCalls[next++]!);
      expect(llm.calls).toBe(1);
      expect(first!.added).toBeLessThanOrEqual(MAX_WAIT_MS + AT_ONCE_MS);
      expect(first!.compaction.skipped).toMatchObject({ reason: 'running' });
      expect(strategy.compactionState).toBeUndefined();

      // While the call runs, the next payload does not wait for it again.
      const running = await compose(modelCalls[next++]!);
      expect(running.added).toBeLessThanOrEqual(AT_ONCE_MS);
      expect(running.compaction.skipped).toMatchObject({ reason: 'running' });

      // The call times out in the background.
      const [error] = await eventsNamed(events, 'compaction-error', 1);
      expect(error).toMatchObject({ trigger: 'auto', error: { code: ErrorCodes.LLM_TIMEOUT } });
      const failedAt = clock.now;

      // Within the back-off, payloads are composed at once without compaction, saying why, and the model is not called.
      clock.now += BACKOFF_MS / 2;
      const warnings = events.filter((event) => event.name === 'strategy-warning').length;
      const backingOff = modelCalls.slice(next, -1);
      next += backingOff.length;
      expect(backingOff.length).toBeGreaterThanOrEqual(5);
      for (const length of backingOff) {
        const composed = await compose(length);
        expect(composed.added).toBeLessThanOrEqual(AT_ONCE_MS);
        // Composed with what it had: the payload composed without compaction.
        expect(composed.payload.messages).toEqual(composed.withoutCompaction.messages);
        expect(composed.compaction).toMatchObject({
          skipped: { reason: 'backing-off', retryAt: failedAt + BACKOFF_MS },
          failedCallsInARow: 1,
          lastError: { code: ErrorCodes.LLM_TIMEOUT },
        });
      }
      const skippedWarnings = events.filter((event) => event.name === 'strategy-warning').slice(warnings);
      expect(skippedWarnings).toHaveLength(backingOff.length);
      expect(skippedWarnings[0]!.payload).toMatchObject({
        code: ErrorCodes.LLM_TIMEOUT,
        message: expect.stringContaining('without compaction'),
      });
      // The compaction hook does not wait on it either.
      const hookStarted = performance.now();
      const hook = await strategy.checkCompaction('after-llm-call', record.history.slice(0, modelCalls[next - 1]), {
        input_tokens: 3900,
        output_tokens: 0,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 3900,
      });
      expect(performance.now() - hookStarted).toBeLessThanOrEqual(AT_ONCE_MS);
      expect(hook).toMatchObject({ compacted: false, reason: expect.stringContaining('backing off') });
      expect(llm.calls).toBe(1);

      // Once the back-off has passed, compaction is tried again, in the background: its model failed last time.
      clock.now += BACKOFF_MS;
      const retry = await compose(modelCalls[next++]!);
      expect(llm.calls).toBe(2);
      expect(retry.added).toBeLessThanOrEqual(AT_ONCE_MS);
      expect(retry.compaction.skipped).toMatchObject({ reason: 'running' });
      // Disposing of the strategy aborts the call still running.
      strategy.dispose();
      expect(llm.signals[1]!.aborted).toBe(true);
    },
  );

  it("says when a payload's own attempt failed, and doubles the wait after each failed call in a row", async () => {
    const llm = new ScriptedLLMClient(
      [new LLMRequestError('HTTP 503 from the provider', { client: 'scripted', status: 503 }, { retryable: true })],
      { repeatLast: true },
    );
    // Without the anti-loop guard's wait for growth, only the wait in time holds the next attempts back.
    const { events, clock, compose } = session(
      { ...config, compaction: { ...config.compaction, retryAfterTokens: 0 } },
      llm,
    );
    let next = 0;
    let first: Awaited<ReturnType<typeof compose>> | undefined;
    while (llm.requests.length === 0 && next < modelCalls.length) first = await compose(modelCalls[next++]!);
    expect(first!.compaction).toMatchObject({
      skipped: { reason: 'failed', retryAt: clock.now + BACKOFF_MS },
      failedCallsInARow: 1,
      lastError: { code: ErrorCodes.LLM_REQUEST_FAILED },
    });
    expect((await compose(modelCalls[next++]!)).compaction.skipped).toMatchObject({ reason: 'backing-off' });
    clock.now += BACKOFF_MS;
    await compose(modelCalls[next++]!);
    expect(llm.requests).toHaveLength(2);
    await eventsNamed(events, 'compaction-error', 2);
    const waiting = await compose(modelCalls[next++]!);
    expect(waiting.compaction).toMatchObject({
      skipped: { reason: 'backing-off', retryAt: clock.now + 2 * BACKOFF_MS },
      failedCallsInARow: 2,
    });
    expect(waiting.added).toBeLessThanOrEqual(AT_ONCE_MS);
  });

  it('uses a compaction that finished in the background from the next payload on (a slow model)', async () => {
    const llm = new ScriptedLLMClient([{ reply: SUMMARY_REPLY, delayMs: 300 }], { repeatLast: true });
    const { strategy, events, compose } = session(
      { ...config, compaction: { ...config.compaction, maxWaitMs: 50 } },
      llm,
    );
    let next = 0;
    let first: Awaited<ReturnType<typeof compose>> | undefined;
    while (llm.requests.length === 0 && next < modelCalls.length) first = await compose(modelCalls[next++]!);
    expect(first!.added).toBeLessThanOrEqual(50 + AT_ONCE_MS);
    expect(first!.compaction.skipped).toMatchObject({ reason: 'running' });
    await sleep(400);
    const after = await compose(modelCalls[next++]!);
    expect(after.added).toBeLessThanOrEqual(AT_ONCE_MS);
    expect(strategy.compactionState?.count).toBe(1);
    expect(after.compaction).toMatchObject({ count: 1, skipped: null, failedCallsInARow: 0 });
    expect(after.payload.stats.reductions).toContainEqual(expect.objectContaining({ action: 'compacted' }));
    expect(events.filter((event) => event.name === 'compaction-end')).toHaveLength(1);
    expect(events.filter((event) => event.name === 'compaction-error')).toHaveLength(0);
  });
});
