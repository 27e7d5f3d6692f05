export interface BackoffSnapshot {
  misses: number;
  wait: number;
  /** The history's length at the last attempt, in each form the caller may pass it in next (`adopted`: compacted). */
  anchor: { full: number; adopted: number } | null;
}

/**
 * When automatic compaction may run again: after an attempt the history must grow by `retryAfterTokens`, times `factor`
 * per further attempt in a row that missed its target (it failed, did not shrink the history, or left what must be
 * kept over the threshold), up to `maxTokens`.
 */
export class CompactionBackoff {
  private state: BackoffSnapshot = { misses: 0, wait: 0, anchor: null };

  constructor(private readonly options: { retryAfterTokens: number; factor: number; maxTokens: number }) {}

  /** Attempts in a row that did not reach their target. */
  get missedAttempts(): number {
    return this.state.misses;
  }

  /** Tokens the history must grow by since the last attempt (0 before any). */
  get waitTokens(): number {
    return this.state.wait;
  }

  /** Where the history stood at the last attempt, in the form the caller passes now. */
  anchorFor(form: 'none' | 'full' | 'adopted'): number | undefined {
    const anchor = this.state.anchor;
    if (!anchor) return undefined;
    return form === 'adopted' ? anchor.adopted : anchor.full;
  }

  /** The wait an attempt that did (`reached`) or did not reach its target would set. */
  nextWait(reached: boolean): number {
    const misses = reached ? 0 : this.state.misses + 1;
    const growth = this.options.factor ** Math.max(0, misses - 1);
    return Math.min(this.options.maxTokens, Math.round(this.options.retryAfterTokens * growth));
  }

  /** Records an attempt on a history of `anchor` messages; `reached`: it brought the context under its threshold. */
  record(reached: boolean, anchor: { full: number; adopted: number }): void {
    this.state = { misses: reached ? 0 : this.state.misses + 1, wait: this.nextWait(reached), anchor };
  }

  snapshot(): BackoffSnapshot {
    return copy(this.state);
  }

  restore(snapshot: BackoffSnapshot): void {
    this.state = copy(snapshot);
  }

  /** Forgets every attempt (another conversation). */
  reset(): void {
    this.state = { misses: 0, wait: 0, anchor: null };
  }
}

function copy({ misses, wait, anchor }: BackoffSnapshot): BackoffSnapshot {
  return { misses, wait, anchor: anchor ? { ...anchor } : null };
}
