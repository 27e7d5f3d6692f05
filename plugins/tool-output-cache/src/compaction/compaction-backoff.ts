export interface CompactionBackoffOptions {
  /** Tokens the history must grow by after an attempt before the next automatic one. */
  retryAfterTokens: number;
  /** What the wait is multiplied by per further attempt in a row that missed its target. */
  factor: number;
  /** The longest wait, in tokens. */
  maxTokens: number;
}

/** The length of the caller's history at the last attempt, in each form the caller may pass it in next. */
export interface BackoffAnchor {
  full: number;
  /** The compacted history, retain + summary first, which the caller may adopt. */
  adopted: number;
}

export interface BackoffSnapshot {
  misses: number;
  wait: number;
  anchor: BackoffAnchor | null;
}

/**
 * When automatic compaction may run again: after an attempt the history must grow by `retryAfterTokens`,
 * times `factor` per further attempt in a row that missed its target (it failed, did not shrink the
 * history, or left what must be kept over the threshold), up to `maxTokens`.
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

  /** Where the history stood at the last attempt, in the form the caller passes now. */
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

  /** Records an attempt on a history of `anchor` messages; `reached`: it brought the context under its threshold. */
  record(reached: boolean, anchor: BackoffAnchor): void {
    this.wait = this.nextWait(reached);
    this.misses = reached ? 0 : this.misses + 1;
    this.anchor = anchor;
  }

  snapshot(): BackoffSnapshot {
    return { misses: this.misses, wait: this.wait, anchor: this.anchor ? { ...this.anchor } : null };
  }

  restore(snapshot: BackoffSnapshot): void {
    this.misses = snapshot.misses;
    this.wait = snapshot.wait;
    this.anchor = snapshot.anchor ? { ...snapshot.anchor } : undefined;
  }

  /** Forgets every attempt (another conversation). */
  reset(): void {
    this.restore({ misses: 0, wait: 0, anchor: null });
  }
}
