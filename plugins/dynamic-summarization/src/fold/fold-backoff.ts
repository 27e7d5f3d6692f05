/** What a failed attempt leaves: the failures in a row, and when the next attempt may start (`null`: stopped). */
export interface FoldFailure {
  consecutiveFailures: number;
  retryAt: number | null;
}

/**
 * Failure accounting of background folds, so that a failing summarizer never loops: at most one
 * attempt per turn; after a failure the next attempt waits `retryBackoffMs × 2^(failures − 1)`; after
 * `maxConsecutiveFailures` in a row no attempt is made while the batch to fold is the same one (its
 * key), and attempts resume, with a clean count, once it changes. A success resets the count.
 */
export class FoldBackoff {
  private failures = 0;
  private retryAt = 0;
  /** Key of the batch being folded when attempts stopped. */
  private stoppedAt: string | undefined;
  private lastAttemptTurn = -1;

  constructor(private readonly options: { maxConsecutiveFailures: number; retryBackoffMs: number }) {}

  /** Failed attempts in a row. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** True after `maxConsecutiveFailures` failures, until the batch to fold changes. */
  get stopped(): boolean {
    return this.stoppedAt !== undefined;
  }

  /** True when an attempt was already made in this turn. */
  attemptedIn(turn: number): boolean {
    return this.lastAttemptTurn === turn;
  }

  /**
   * True when the batch `batchKey` may be attempted now. A stop for another batch is lifted (with a
   * clean count); `now` is read only when the back-off decides.
   */
  mayAttempt(batchKey: string, now: () => number): boolean {
    if (this.stoppedAt !== undefined) {
      if (this.stoppedAt === batchKey) return false;
      this.reset();
    }
    return now() >= this.retryAt;
  }

  /** Records that an attempt starts in `turn`. */
  attempting(turn: number): void {
    this.lastAttemptTurn = turn;
  }

  /** Records a failed attempt of `batchKey` at `now`. */
  failed(batchKey: string, now: number): FoldFailure {
    this.failures++;
    const stopped = this.failures >= this.options.maxConsecutiveFailures;
    this.retryAt = now + this.options.retryBackoffMs * 2 ** (this.failures - 1);
    if (stopped) this.stoppedAt = batchKey;
    return { consecutiveFailures: this.failures, retryAt: stopped ? null : this.retryAt };
  }

  /** Records a committed fold. */
  succeeded(): void {
    this.failures = 0;
    this.retryAt = 0;
  }

  /** Forgets failures, back-off and a stop (the history was re-synchronised). */
  reset(): void {
    this.failures = 0;
    this.retryAt = 0;
    this.stoppedAt = undefined;
  }
}
