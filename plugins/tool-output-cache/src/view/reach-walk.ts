/**
 * The valid tool-call units a walk back went through to learn how far a window can reach, oldest first: while they did
 * not change, the next call keeps the walk's bound instead of walking again.
 */
export interface ReachWalk {
  starts: number[];
  ends: number[];
  /** `sums[i]`: the fewest tokens of units 0 to i together. */
  sums: number[];
}

export interface WalkedUnit {
  start: number;
  end: number;
  tokens: number;
}

/** Builds a walk from units listed newest first, as a walk back finds them. */
export function reachWalk(newestFirst: ReadonlyArray<WalkedUnit>): ReachWalk {
  const walk: ReachWalk = { starts: [], ends: [], sums: [] };
  let sum = 0;
  for (let index = newestFirst.length - 1; index >= 0; index--) {
    const unit = newestFirst[index]!;
    sum += unit.tokens;
    walk.starts.push(unit.start);
    walk.ends.push(unit.end);
    walk.sums.push(sum);
  }
  return walk;
}

/** The oldest `count` units of `walk`: the walk itself when that is all of them (a walk is never changed once made). */
export function walkPrefix(walk: ReachWalk, count: number): ReachWalk {
  if (count === walk.ends.length) return walk;
  return { starts: walk.starts.slice(0, count), ends: walk.ends.slice(0, count), sums: walk.sums.slice(0, count) };
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
