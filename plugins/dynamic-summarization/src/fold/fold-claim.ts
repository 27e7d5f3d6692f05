/**
 * A running fold, as it is written to the store before the summarizer is asked: the instances and
 * processes serving the session see it and start no fold of their own while it is live, so that no
 * turns are folded twice. The fold's commit or failure clears it; a claim whose process died expires.
 */
export interface FoldClaim {
  /** Names the attempt (its instance and a count), so that only it clears or replaces the claim. */
  id: string;
  /** Key of the batch being folded (summary version and fingerprint of its messages). */
  batchKey: string;
  /** The turn the attempt started in. */
  turn: number;
  /** After this time (ms since epoch) the claim is ignored: its fold timed out or its process is gone. */
  expiresAt: number;
}

/**
 * How long a claim outlives the fold's own timeout (`summaryTimeoutMs`): time for the commit to be
 * written after the summary came back.
 */
export const FOLD_CLAIM_GRACE_MS = 10_000;

/** True while a claim stops other folds from starting. */
export function isLiveClaim(claim: FoldClaim | null, now: () => number): claim is FoldClaim {
  return claim !== null && now() < claim.expiresAt;
}

/** True for a value read from the store that has the layout of {@link FoldClaim}. */
export function isFoldClaim(value: unknown): value is FoldClaim {
  if (value === null || typeof value !== 'object') return false;
  const claim = value as Partial<FoldClaim>;
  return (
    typeof claim.id === 'string' &&
    typeof claim.batchKey === 'string' &&
    Number.isInteger(claim.turn) &&
    typeof claim.expiresAt === 'number'
  );
}
