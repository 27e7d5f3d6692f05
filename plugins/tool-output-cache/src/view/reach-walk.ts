/**
 * The valid tool-call units a walk back from the newest message went through to learn how far a
 * window can reach, oldest first, with the running sum of their fewest tokens from the oldest: the
 * next call reuses the units that did not change instead of walking them again.
 */
export interface ReachWalk {
  /** First position of each unit, ascending. */
  starts: number[];
  /** Position after each unit. */
  ends: number[];
  /** `sums[i]`: the fewest tokens of units 0 to i together. */
  sums: number[];
  /** True when the walk reached the first position the view sends: all its units fit together. */
  complete?: boolean;
}

/** One unit a walk back went through. */
export interface WalkedUnit {
  start: number;
  end: number;
  /** Its fewest tokens. */
  tokens: number;
}

/**
 * Builds a walk from units listed newest first, as a walk back finds them (`complete`: it reached the first position
 * the view sends).
 */
export function reachWalk(newestFirst: ReadonlyArray<WalkedUnit>, complete = false): ReachWalk {
  return appendUnits({ starts: [], ends: [], sums: [], ...(complete ? { complete } : {}) }, newestFirst);
}

function appendUnits(walk: ReachWalk, newestFirst: ReadonlyArray<WalkedUnit>): ReachWalk {
  let sum = walk.sums.length > 0 ? walk.sums[walk.sums.length - 1]! : 0;
  for (let index = newestFirst.length - 1; index >= 0; index--) {
    const unit = newestFirst[index]!;
    sum += unit.tokens;
    walk.starts.push(unit.start);
    walk.ends.push(unit.end);
    walk.sums.push(sum);
  }
  return walk;
}

/** How many units of `walk` (from the oldest) end at or before `position`. */
export function unitsEndingBy(walk: ReachWalk, position: number): number {
  let low = 0;
  let high = walk.ends.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (walk.ends[middle]! <= position) low = middle + 1;
    else high = middle;
  }
  return low;
}
