import type { ReductionRecord } from '@ctxkit/core';
import type { HistoryRange } from '@ctxkit/core/strategy-kit';

import { type ReducedMessage, ReductionLog } from './reduction-log';

/** One reduction the working view made at a position of the caller's history. */
export type ViewReduction = ReducedMessage;

/** The working view's reductions by kind, each list in position order. */
export interface ViewReductions {
  /** Outputs shown as an in-context view that cut them. */
  truncated: ViewReduction[];
  /** Results micro-compacted at every payload (`microCompact.when: "always"`). */
  microCompacted: ViewReduction[];
  /** Outputs over the tool output budget, shown as placeholders. */
  trimmed: ViewReduction[];
}

/** The kinds in the order a payload reports them, with their action and reason. */
const KINDS = [
  { kind: 'truncated', action: 'truncated', reason: () => 'tool output shown as an in-context view' },
  {
    kind: 'microCompacted',
    action: 'micro-compacted',
    reason: (keepRecent: number) => `tool result older than the newest ${keepRecent}`,
  },
  { kind: 'trimmed', action: 'trimmed', reason: () => 'tool outputs passed the tool output budget' },
] as const;

export function noViewReductions(): ViewReductions {
  return { truncated: [], microCompacted: [], trimmed: [] };
}

/** The reductions of `reductions` at positions in `[from, to)`. */
export function reductionsWithin(reductions: ViewReductions, from: number, to: number): ViewReductions {
  const within = (list: ViewReduction[]) => list.filter(({ position }) => position >= from && position < to);
  return {
    truncated: within(reductions.truncated),
    microCompacted: within(reductions.microCompacted),
    trimmed: within(reductions.trimmed),
  };
}

/**
 * The records of `reductions` at the positions of `kept` (the history a payload keeps) before `before`: the head a cut
 * window keeps shows the forms an earlier call laid out there. Only the kept ranges are looked at (that head is small).
 */
export function keptViewReductionsBefore(
  reductions: ViewReductions,
  kept: ReadonlyArray<HistoryRange>,
  before: number,
  keepRecent: number,
): ReductionRecord[] {
  if (kept.length === 0 || kept[0]!.from >= before) return [];
  const log = new ReductionLog();
  for (const { kind, action, reason } of KINDS) {
    const list = reductions[kind];
    for (const range of kept) {
      if (range.from >= before) break;
      const to = Math.min(range.to, before);
      for (let index = firstAtOrAfter(list, range.from); index < list.length && list[index]!.position < to; index++)
        log.add(action, reason(keepRecent), list[index]!);
    }
  }
  return log.list(kept);
}

/** The working view's reductions as a payload's log, in the order of {@link KINDS}. */
export function viewReductionsLog(reductions: ViewReductions, keepRecent: number): ReductionLog {
  const log = new ReductionLog();
  for (const { kind, action, reason } of KINDS) {
    const why = reason(keepRecent);
    for (const reduction of reductions[kind]) log.add(action, why, reduction);
  }
  return log;
}

/** Index of the first reduction at or after `position`. */
function firstAtOrAfter(list: ReadonlyArray<ViewReduction>, position: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]!.position < position) low = middle + 1;
    else high = middle;
  }
  return low;
}
