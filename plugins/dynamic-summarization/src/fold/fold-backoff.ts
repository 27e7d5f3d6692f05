/** What a failed attempt leaves: the failures in a row, and when the next attempt may start (`null`: stopped). */
export interface FoldFailure {
  consecutiveFailures: number;
  retryAt: number | null;
}

/**
 * The failure accounting of a session's folds, as it is kept in the store beside the summary, so that
 * every instance and process serving the session shares it.
 */
export interface FoldBackoffState {
  /** Failed attempts in a row. */
  consecutiveFailures: number;
  /** No attempt starts before this time (ms since epoch; 0: none pending). */
  retryAt: number;
  /** Key of the batch attempts stopped at after `maxConsecutiveFailures` (`null`: not stopped). */
  stoppedAt: string | null;
  /** Turn of the last attempt (-1: none yet). */
  lastAttemptTurn: number;
}

/** The accounting of a session that never failed. */
export function initialFoldBackoffState(): FoldBackoffState {
  return { consecutiveFailures: 0, retryAt: 0, stoppedAt: null, lastAttemptTurn: -1 };
}

/** True for a value read from the store that has the layout of {@link FoldBackoffState}. */
export function isFoldBackoffState(value: unknown): value is FoldBackoffState {
  if (value === null || typeof value !== 'object') return false;
  const state = value as Partial<FoldBackoffState>;
  return (
    Number.isInteger(state.consecutiveFailures) &&
    typeof state.retryAt === 'number' &&
    (state.stoppedAt === null || typeof state.stoppedAt === 'string') &&
    Number.isInteger(state.lastAttemptTurn)
  );
}

/**
 * Failure accounting of background folds, so that a failing summarizer never loops: at most one
 * attempt per turn; after a failure the next attempt waits `retryBackoffMs × 2^(failures − 1)`; after
 * `maxConsecutiveFailures` in a row no attempt is made while the batch to fold is the same one (its
 * key), and attempts resume, with a clean count, once it changes. A success resets the count.
 * It works on a copy of a {@link FoldBackoffState} (read from the store) and gives the updated copy
 * back through `state`, to be written with the fold's claim, commit or failure.
 */
export class FoldBackoff {
  private readonly current: FoldBackoffState;

  constructor(
    private readonly options: { maxConsecutiveFailures: number; retryBackoffMs: number },
    state: Readonly<FoldBackoffState> = initialFoldBackoffState(),
  ) {
    this.current = { ...state };
  }

  /** A copy of the accounting, as it stands after the calls made so far. */
  get state(): FoldBackoffState {
    return { ...this.current };
  }

  /** Failed attempts in a row. */
  get consecutiveFailures(): number {
    return this.current.consecutiveFailures;
  }

  /** True after `maxConsecutiveFailures` failures, until the batch to fold changes. */
  get stopped(): boolean {
    return this.current.stoppedAt !== null;
  }

  /** True when an attempt was already made in this turn. */
  attemptedIn(turn: number): boolean {
    return this.current.lastAttemptTurn === turn;
  }

  /**
   * True when the batch `batchKey` may be attempted now. A stop for another batch is lifted (with a
   * clean count); `now` is read only when the back-off decides.
   */
  mayAttempt(batchKey: string, now: () => number): boolean {
    if (this.current.stoppedAt !== null) {
      if (this.current.stoppedAt === batchKey) return false;
      this.reset();
    }
    return now() >= this.current.retryAt;
  }

  /** Records that an attempt starts in `turn`. */
  attempting(turn: number): void {
    this.current.lastAttemptTurn = turn;
  }

  /** Records a failed attempt of `batchKey` at `now`. */
  failed(batchKey: string, now: number): FoldFailure {
    this.current.consecutiveFailures++;
    const failures = this.current.consecutiveFailures;
    const stopped = failures >= this.options.maxConsecutiveFailures;
    this.current.retryAt = now + this.options.retryBackoffMs * 2 ** (failures - 1);
    if (stopped) this.current.stoppedAt = batchKey;
    return { consecutiveFailures: failures, retryAt: stopped ? null : this.current.retryAt };
  }

  /** Records a committed fold. */
  succeeded(): void {
    this.current.consecutiveFailures = 0;
    this.current.retryAt = 0;
  }

  /** Forgets failures, back-off and a stop (the history was re-synchronised). */
  reset(): void {
    this.current.consecutiveFailures = 0;
    this.current.retryAt = 0;
    this.current.stoppedAt = null;
  }
}
