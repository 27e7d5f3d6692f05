/** What a {@link FailureBackoff} waits with, in ms. */
export interface FailureBackoffOptions {
  /** The wait after the first failed call. */
  firstMs: number;
  /** The longest wait. */
  maxMs: number;
}

/**
 * When a model whose call failed (an error, a timeout) may be called again: after each failed call
 * in a row the wait doubles, from `firstMs` up to `maxMs`; a call that succeeds starts over. Times
 * are the strategy's clock (`StrategyContext.now`), read only while a failure is recorded.
 */
export class FailureBackoff {
  private failures = 0;
  private until = 0;

  constructor(private readonly options: FailureBackoffOptions) {}

  /** Failed calls in a row. */
  get failedInARow(): number {
    return this.failures;
  }

  /** When the next call may start (ms since epoch); `null` when the last call did not fail. */
  get retryAt(): number | null {
    return this.failures > 0 ? this.until : null;
  }

  /** Records a call that failed at `at`; returns when the next one may start. */
  failed(at: number): number {
    this.failures++;
    const wait = Math.min(this.options.maxMs, this.options.firstMs * 2 ** (this.failures - 1));
    this.until = at + wait;
    return this.until;
  }

  /** Records a call that succeeded. */
  succeeded(): void {
    this.failures = 0;
    this.until = 0;
  }

  /** True while a failed call's wait has not passed; `now` is read only then. */
  waiting(now: () => number): boolean {
    return this.failures > 0 && now() < this.until;
  }
}
