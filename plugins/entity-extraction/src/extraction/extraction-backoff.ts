/** The longest back-off, however many calls failed in a row (unless the first back-off is longer). */
const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * When the extraction model may be called again after calls that failed (an error or a timeout): the
 * first failure in a row holds calls back `backoffMs`, each further one twice as long as the one
 * before (`backoffMs × 2^(failures − 1)`, at most 15 minutes); a call that answers ends it. `0` never
 * holds calls back. Kept by each strategy instance, in memory; times are the strategy's clock
 * (`context.now()`, ms since epoch).
 */
export class ExtractionBackoff {
  private failures = 0;
  private until = 0;

  constructor(private readonly backoffMs: number) {}

  /** Failed calls in a row. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** When the model may be called again, while calls are held back at `now`; `null` when it may be called now. */
  heldUntil(now: number): number | null {
    return this.failures > 0 && now < this.until ? this.until : null;
  }

  /** Records a failed call at `now`; returns when the model may be called again. */
  failed(now: number): number {
    this.failures++;
    const wait = Math.min(Math.max(this.backoffMs, MAX_BACKOFF_MS), this.backoffMs * 2 ** (this.failures - 1));
    this.until = now + wait;
    return this.until;
  }

  /** Records a call that answered. */
  succeeded(): void {
    this.failures = 0;
    this.until = 0;
  }
}
