/**
 * Runs async work one task at a time, in call order (a strategy keeps one per session, so that its
 * compositions, turn completions and background commits never interleave). A failed task does not
 * stop the ones queued after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Queues `work` after everything queued so far; resolves or rejects with its outcome. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.tail.then(
      () => undefined,
      () => undefined,
    );
  }
}
