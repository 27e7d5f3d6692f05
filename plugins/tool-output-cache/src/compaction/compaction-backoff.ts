/** What a {@link CompactionBackoff} waits with. */
export interface CompactionBackoffOptions {
  /** Tokens the history must grow by after an attempt before the next automatic one. */
  retryAfterTokens: number;
  /** Factor the wait grows by with each further attempt in a row that did not reach its target. */
  factor: number;
  /** The longest wait, in tokens. */
  maxTokens: number;
}

/** How long the caller's history was at the last attempt, in each form the caller may pass it in next. */
export interface BackoffAnchor {
  /** The caller's full history (the form it passed, or the history a compaction replaced). */
  full: number;
  /** The compacted history, retain + summary first (after a compaction the caller may adopt it). */
  adopted: number;
}

/** What a {@link CompactionBackoff} knows, as JSON (kept with a compaction epoch, so that its undo restores it). */
export interface BackoffSnapshot {
  misses: number;
  wait: number;
  anchor: BackoffAnchor | null;
}

/**
 * When automatic compaction may run again. After every attempt the history must first grow by
 * `retryAfterTokens`; after each further attempt in a row that did not reach its target (it failed,
 * did not shrink the history, or left what must be kept over the threshold) the wait is multiplied
 * by `factor`, up to `maxTokens`. A compaction that cannot make progress is thus not retried every
 * turn, and one that reached its target starts over from `retryAfterTokens`.
 */
export class CompactionBackoff {
  private misses = 0;
  private wait = 0;
  private anchor: BackoffAnchor | undefined;

  constructor(private readonly options: CompactionBackoffOptions) {}

  /** Attempts in a row that did not reach their target. */
  get missedAttempts(): number {
    return this.misses;
  }

  /** Tokens the history must grow by since the last attempt (0 before any). */
  get waitTokens(): number {
    return this.wait;
  }

  /** Where the history stood at the last attempt, in the form the caller passes now; `undefined` before any attempt. */
  anchorFor(form: 'none' | 'full' | 'adopted'): number | undefined {
    if (!this.anchor) return undefined;
    return form === 'adopted' ? this.anchor.adopted : this.anchor.full;
  }

  /** The wait an attempt that did (`reached`) or did not reach its target would set. */
  nextWait(reached: boolean): number {
    const misses = reached ? 0 : this.misses + 1;
    const growth = this.options.factor ** Math.max(0, misses - 1);
    return Math.min(this.options.maxTokens, Math.round(this.options.retryAfterTokens * growth));
  }

  /**
   * Records an attempt made on a history of `anchor` messages; `reached`: it brought the context under its threshold.
   */
  record(reached: boolean, anchor: BackoffAnchor): void {
    this.wait = this.nextWait(reached);
    this.misses = reached ? 0 : this.misses + 1;
    this.anchor = anchor;
  }

  /** What it knows now. */
  snapshot(): BackoffSnapshot {
    return { misses: this.misses, wait: this.wait, anchor: this.anchor ? { ...this.anchor } : null };
  }

  /** Takes back what {@link snapshot} returned. */
  restore(snapshot: BackoffSnapshot): void {
    this.misses = snapshot.misses;
    this.wait = snapshot.wait;
    this.anchor = snapshot.anchor ? { ...snapshot.anchor } : undefined;
  }

  /** Forgets every attempt (another conversation). */
  reset(): void {
    this.misses = 0;
    this.wait = 0;
    this.anchor = undefined;
  }
}
