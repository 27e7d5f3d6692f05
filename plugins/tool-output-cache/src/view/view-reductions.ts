import type { RecoverySource } from '@ctxkit/core';

/** One reduction the working view made at a position of the caller's history. */
export interface ViewReduction {
  position: number;
  recoverableFrom: RecoverySource;
  ref?: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

/** The working view's reductions by kind, each list in position order. */
export interface ViewReductions {
  /** Outputs shown as an in-context view that cut them. */
  truncated: ViewReduction[];
  /** Results micro-compacted at every payload (`microCompact.when: "always"`). */
  microCompacted: ViewReduction[];
  /** Outputs over the tool output budget, shown as placeholders. */
  trimmed: ViewReduction[];
}

/** Reasons of the view's reductions. */
export const VIEW_REASONS = Object.freeze({
  truncated: 'tool output shown as an in-context view',
  trimmed: 'tool outputs passed the tool output budget',
  microCompacted: (keepRecent: number) => `tool result older than the newest ${keepRecent}`,
});

/** No reductions. */
export function noViewReductions(): ViewReductions {
  return { truncated: [], microCompacted: [], trimmed: [] };
}

/** Index of the first reduction at or after `position` (binary search). */
export function firstAtOrAfter(list: ReadonlyArray<ViewReduction>, position: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]!.position < position) low = middle + 1;
    else high = middle;
  }
  return low;
}
