import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { LLMTimeoutError } from '../errors/llm-timeout-error';

/**
 * Calls `llm.complete(request)` with a deadline the caller enforces itself: the request carries
 * an `AbortSignal` (and `timeoutMs`) for clients that honour them, and a timer races the call for
 * clients that do not (a dead connection, a client that ignores the signal). When the timer fires
 * first, the signal is aborted and the returned promise rejects with `LLMTimeoutError`
 * (`CTXKIT_LLM_TIMEOUT`); a late answer or failure of the client is then ignored. A caller's
 * `request.signal` still aborts the call. The timer is cleared as soon as the race settles, so
 * nothing stays scheduled after the call (it is not unref'd while the call runs: it is what
 * guarantees the caller an answer).
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when the client has not settled within `timeoutMs`
 * @throws whatever the client throws, unchanged, when it fails first
 */
export function completeBeforeDeadline(llm: ILLMClient, request: LLMCompletionRequest, timeoutMs: number): Promise<LLMCompletion> {
  const abort = new AbortController();
  const ms = Math.max(1, Math.ceil(timeoutMs));
  const outer = request.signal;
  const forward = (): void => abort.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new LLMTimeoutError({ client: llm.name, model: request.model ?? llm.defaultModel, timeoutMs: ms });
      abort.abort(error);
      reject(error);
    }, ms);
  });
  let call: Promise<LLMCompletion>;
  try {
    call = Promise.resolve(llm.complete({ ...request, timeoutMs: ms, signal: abort.signal }));
  } catch (error) {
    // A client that throws synchronously instead of rejecting.
    call = Promise.reject(error);
  }
  return Promise.race([call, expired]).finally(() => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  });
}
