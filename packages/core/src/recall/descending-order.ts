/**
 * Reorders `items` by their keys (`keys[i]` is the key of `items[i]`), highest first; of equal keys,
 * in the order listed: what a stable sort with a comparison gives, without a call per comparison.
 * The keys are sorted by the engine's numeric sort of a typed array, then each item is placed, in the
 * order listed, at the next free place of its key's run. A search sorts its matches and the ranking
 * its candidates, a few thousand on a long history: with a comparison function this took 0.15 to 0.3
 * ms of a turn.
 */
export function orderByKeyDescending<T>(items: T[], keys: Float64Array): void {
  const count = items.length;
  if (count < 2) return;
  const ascending = keys.slice(0, count).sort();
  // By the index one past a key's run in `ascending`: how many of its items are placed.
  const placed = new Int32Array(count + 1);
  const listed = items.slice();
  for (let at = 0; at < count; at++) {
    const runEnd = pastLastAtMost(ascending, keys[at]!);
    // Highest first: the run ending at `runEnd` in ascending order starts at `count - runEnd`.
    items[count - runEnd + placed[runEnd]!] = listed[at]!;
    placed[runEnd] = placed[runEnd]! + 1;
  }
}

/** Sorts `slots` by their scores (`scores[slot]`), highest first; of equal scores, in the order listed. */
export function sortSlotsByScore(slots: number[], scores: Float64Array): void {
  const keys = new Float64Array(slots.length);
  for (let at = 0; at < slots.length; at++) keys[at] = scores[slots[at]!]!;
  orderByKeyDescending(slots, keys);
}

/** The index one past the last value of `ascending` that is at most `value`. */
function pastLastAtMost(ascending: Float64Array, value: number): number {
  let low = 0;
  let high = ascending.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ascending[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
