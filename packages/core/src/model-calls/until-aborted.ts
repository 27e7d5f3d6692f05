/**
 * Runs `work` and settles with it, unless `signal` aborts first: then the promise rejects at once
 * with the signal's reason (without starting the work when the signal has already aborted), so that
 * a call which ignores its signal still ends for the caller. The work's late answer or failure is
 * then ignored.
 */
export function untilAborted<T>(work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work();
  if (signal.aborted) return Promise.reject(signal.reason);
  let stop = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stop = () => reject(signal.reason);
  });
  signal.addEventListener('abort', stop, { once: true });
  let running: Promise<T>;
  try {
    running = work();
  } catch (error) {
    // work that throws instead of rejecting
    running = Promise.reject(error);
  }
  return Promise.race([running, aborted]).finally(() => signal.removeEventListener('abort', stop));
}
