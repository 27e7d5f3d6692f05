/**
 * Runs async work of one session one at a time, in call order: compositions, turn completions and
 * the commit of a fold never interleave. A failed task does not stop the ones queued after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Queues `work` after everything queued so far; resolves or rejects with its outcome. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
