import type { ReductionRecord } from '@ctxkit/core';
import type { HistoryRange } from '@ctxkit/core/strategy-kit';

import { ReductionLog } from './reduction-log';
import { firstAtOrAfter, VIEW_REASONS, type ViewReductions } from './view-reductions';

type Kind = keyof ViewReductions;

const KINDS: ReadonlyArray<{ kind: Kind; action: 'truncated' | 'micro-compacted' | 'trimmed' }> = [
  { kind: 'truncated', action: 'truncated' },
  { kind: 'microCompacted', action: 'micro-compacted' },
  { kind: 'trimmed', action: 'trimmed' },
];

/** The reason of one kind's reductions. */
function reasonOf(kind: Kind, keepRecent: number): string {
  return kind === 'microCompacted' ? VIEW_REASONS.microCompacted(keepRecent) : VIEW_REASONS[kind];
}

/**
 * The records of `reductions` at the positions of `kept` (the history a payload keeps) before `before`, one per kept
 * range: the first messages a cut window keeps in front of it show the forms an earlier call laid out there, older
 * than what the window can reach. Made afresh each time: they are few (the head takes a share of the room).
 */
export function keptViewReductionsBefore(
  reductions: ViewReductions,
  kept: ReadonlyArray<HistoryRange>,
  before: number,
  keepRecent: number,
): ReductionRecord[] {
  if (kept.length === 0 || kept[0]!.from >= before) return [];
  const log = new ReductionLog();
  for (const { kind, action } of KINDS) {
    const list = reductions[kind];
    const reason = reasonOf(kind, keepRecent);
    for (const range of kept) {
      if (range.from >= before) break;
      const to = Math.min(range.to, before);
      for (let index = firstAtOrAfter(list, range.from); index < list.length && list[index]!.position < to; index++)
        log.add(action, reason, list[index]!);
    }
  }
  return log.list(kept);
}

/**
 * The working view's reductions as a payload's log: in-context views, then micro-compacted results, then placeholders
 * of the tool output budget, neighbours merged.
 */
export function viewReductionsLog(reductions: ViewReductions, keepRecent: number): ReductionLog {
  const log = new ReductionLog();
  for (const { kind, action } of KINDS) {
    const reason = reasonOf(kind, keepRecent);
    for (const reduction of reductions[kind]) log.add(action, reason, reduction);
  }
  return log;
}
