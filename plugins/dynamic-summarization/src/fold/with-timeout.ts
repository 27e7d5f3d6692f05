/**
 * Races `work` against a timeout and an abort: after `timeoutMs` the controller is aborted with
 * `timeoutError()` and the race rejects with it; an abort from elsewhere (re-sync, dispose) rejects
 * with its reason. The timer is cleared however the race ends.
 */
export function withTimeout<T>(
  work: Promise<T>,
  abort: AbortController,
  timeoutMs: number,
  timeoutError: () => Error,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = timeoutError();
      abort.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const aborted = new Promise<never>((_resolve, reject) => {
    abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
  });
  return Promise.race([work, timeout, aborted]).finally(() => clearTimeout(timer));
}
