import type { ILLMClient, LLMCompletionRequest } from '../contracts/llm-client';
import { LLMTimeoutError } from '../errors/llm-timeout-error';
import { ScriptedLLMClient } from '../testing/scripted-llm-client';
import { SilentLLMClient } from '../testing/silent-llm-client';
import { completeBeforeDeadline } from './complete-before-deadline';

const request: LLMCompletionRequest = { messages: [{ role: 'user', content: 'hi' }], tools: null };

describe('completeBeforeDeadline', () => {
  afterEach(() => jest.useRealTimers());

  it('rejects with LLMTimeoutError and aborts the signal when the client never settles', async () => {
    jest.useFakeTimers();
    const llm = new SilentLLMClient();
    const call = completeBeforeDeadline(llm, request, 250);
    const settled = call.catch((error: unknown) => error);
    jest.advanceTimersByTime(249);
    expect(llm.signals[0]!.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    const error = await settled;
    expect(LLMTimeoutError.isInstance(error)).toBe(true);
    expect((error as LLMTimeoutError).code).toBe('CTXKIT_LLM_TIMEOUT');
    expect((error as LLMTimeoutError).message).toContain('250 ms');
    expect(llm.signals[0]!.aborted).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('forwards an abort of the caller signal to the client', async () => {
    const llm = new ScriptedLLMClient([{ reply: 'answer', delayMs: 10_000 }]);
    const caller = new AbortController();
    const call = completeBeforeDeadline(llm, { ...request, signal: caller.signal }, 60_000);
    caller.abort(new Error('disposed'));
    await expect(call).rejects.toMatchObject({ code: 'CTXKIT_LLM_TIMEOUT' });
  });

  it("ends the call when the caller's signal aborts, also for a client that ignores its signal", async () => {
    const deaf: ILLMClient = {
      name: 'deaf',
      defaultModel: 'm',
      offline: false,
      complete: () => new Promise(() => undefined),
    };
    const caller = new AbortController();
    const call = completeBeforeDeadline(deaf, { ...request, signal: caller.signal }, 60_000);
    caller.abort(new Error('disposed'));
    const error = await call.catch((failure: unknown) => failure);
    expect(LLMTimeoutError.isInstance(error)).toBe(true);
    expect((error as LLMTimeoutError).details).toMatchObject({ client: 'deaf', aborted: true });
    const already = completeBeforeDeadline(deaf, { ...request, signal: caller.signal }, 60_000);
    await expect(already).rejects.toMatchObject({ code: 'CTXKIT_LLM_TIMEOUT', details: { aborted: true } });
  });

  it('returns the answer and leaves no timer behind when the client answers first', async () => {
    jest.useFakeTimers();
    const llm = new ScriptedLLMClient(['{"a":1}']);
    const completion = await completeBeforeDeadline(llm, request, 60_000);
    expect(completion.text).toBe('{"a":1}');
    expect(llm.lastRequest!.hadSignal).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('passes a client failure through unchanged, also a synchronous throw, and clears the timer', async () => {
    jest.useFakeTimers();
    const failing = new ScriptedLLMClient([new Error('connection reset')]);
    await expect(completeBeforeDeadline(failing, request, 60_000)).rejects.toThrow('connection reset');
    const throwing: ILLMClient = {
      name: 'sync',
      defaultModel: 'm',
      offline: false,
      complete: () => {
        throw new TypeError('not a promise');
      },
    };
    await expect(completeBeforeDeadline(throwing, request, 60_000)).rejects.toThrow('not a promise');
    expect(jest.getTimerCount()).toBe(0);
  });
});
