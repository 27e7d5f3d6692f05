import { LLMTimeoutError, type LLMClient, type LLMCompletion, type LLMCompletionRequest } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { compactMessages } from './compact-messages';
import { resolveCompactionConfig } from './compaction-config';
import { completeBeforeDeadline } from './complete-before-deadline';

/** A dead connection: `complete()` never settles and ignores its signal. */
class SilentClient implements LLMClient {
  readonly name = 'silent';
  readonly defaultModel = 'silent-model';
  readonly offline = false;
  readonly signals: Array<AbortSignal | undefined> = [];
  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.signals.push(request.signal);
    return new Promise<LLMCompletion>(() => undefined);
  }
}

const request: LLMCompletionRequest = { messages: [{ role: 'user', content: 'hi' }], tools: null };

describe('completeBeforeDeadline', () => {
  afterEach(() => jest.useRealTimers());

  it('rejects with LLMTimeoutError and aborts the signal when the client never settles', async () => {
    jest.useFakeTimers();
    const llm = new SilentClient();
    const settled = completeBeforeDeadline(llm, request, 300).catch((error: unknown) => error);
    jest.advanceTimersByTime(299);
    expect(llm.signals[0]!.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    const error = await settled;
    expect(LLMTimeoutError.isInstance(error)).toBe(true);
    expect((error as LLMTimeoutError).code).toBe('CTXKIT_LLM_TIMEOUT');
    expect(llm.signals[0]!.aborted).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('forwards an abort of the caller signal to the client', async () => {
    const llm = new ScriptedLLMClient([{ reply: '<summary>s</summary>', delayMs: 10_000 }]);
    const caller = new AbortController();
    const call = completeBeforeDeadline(llm, { ...request, signal: caller.signal }, 60_000);
    caller.abort(new Error('disposed'));
    await expect(call).rejects.toMatchObject({ code: 'CTXKIT_LLM_TIMEOUT' });
  });

  it('returns the answer and leaves no timer behind when the client answers first', async () => {
    jest.useFakeTimers();
    const llm = new ScriptedLLMClient(['<summary>s</summary>']);
    expect((await completeBeforeDeadline(llm, request, 60_000)).text).toBe('<summary>s</summary>');
    expect(llm.lastRequest).toMatchObject({ hadSignal: true, timeoutMs: 60_000 });
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('compactMessages', () => {
  describe('#timeoutMs', () => {
    it('fails with CTXKIT_LLM_TIMEOUT after compaction.timeoutMs when the model never answers', async () => {
      const config = resolveCompactionConfig({ timeoutMs: 150 });
      const started = performance.now();
      const error = await compactMessages([{ role: 'user', content: 'a long task' }], { llm: new SilentClient(), callerModel: 'm', config }).catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(LLMTimeoutError.isInstance(error)).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('defaults to two minutes', () => {
      expect(resolveCompactionConfig(undefined).timeoutMs).toBe(120_000);
    });
  });
});
