import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { LLMTimeoutError } from '../errors/llm-timeout-error';

/**
 * Calls `llm.complete(request)` with a deadline the caller enforces itself: the request carries
 * an `AbortSignal` (and `timeoutMs`) for clients that honour them, and a timer races the call for
 * clients that do not (a dead connection, a client that ignores the signal). When the timer fires
 * first, the signal is aborted and the returned promise rejects with `LLMTimeoutError`
 * (`CTXKIT_LLM_TIMEOUT`); a late answer or failure of the client is then ignored. A caller's
 * `request.signal` aborts the call the same way: the client's signal is aborted and the promise
 * rejects with `LLMTimeoutError` (`details.aborted: true`), also when the client ignores its
 * signal. The timer is cleared as soon as the race settles, so nothing stays scheduled after the
 * call (it is not unref'd while the call runs: it is what guarantees the caller an answer).
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when the client has not settled within `timeoutMs`
 * (`details.aborted: false`) or the caller's signal aborted first (`details.aborted: true`)
 * @throws whatever the client throws, unchanged, when it fails first
 */
export function completeBeforeDeadline(
  llm: ILLMClient,
  request: LLMCompletionRequest,
  timeoutMs: number,
): Promise<LLMCompletion> {
  const abort = new AbortController();
  const ms = Math.max(1, Math.ceil(timeoutMs));
  const details = { client: llm.name, model: request.model ?? llm.defaultModel, timeoutMs: ms };
  const outer = request.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let forward = (): void => undefined;
  // Rejected before the client's signal is aborted, so that it wins the race over the client's own abort error.
  const expired = new Promise<never>((_resolve, reject) => {
    forward = () => {
      reject(new LLMTimeoutError({ ...details, aborted: true }, outer?.reason));
      abort.abort(outer?.reason);
    };
    timer = setTimeout(() => {
      const error = new LLMTimeoutError({ ...details, aborted: false });
      reject(error);
      abort.abort(error);
    }, ms);
  });
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
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
