/**
 * Sorts `slots` by their scores, highest first; of equal scores, in the order listed (a stable sort).
 *
 * The comparison is one module function bound to `scores`, not a closure made at each call: the
 * engine keeps a closure's optimized code only while one of its closures lives, so a closure made
 * per call is compiled again after every major collection (a new conversation's index build runs
 * several), and the sorts of a turn's ranking ran unoptimized for a few turns each time.
 */
export function sortSlotsByScore(slots: number[], scores: Float64Array): void {
  slots.sort(byScoreDescending.bind(undefined, scores));
}

function byScoreDescending(scores: Float64Array, x: number, y: number): number {
  return scores[y]! - scores[x]!;
}
