import type { ReductionRecord } from '@ctxkit/core';
import type { HistoryRange } from '@ctxkit/core/strategy-kit';

import { type LoggedRecord, ReductionLog } from './reduction-log';
import { firstAtOrAfter, VIEW_REASONS, type ViewReduction, type ViewReductions } from './view-reductions';

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
        log.addOne(action, reason, list[index]!);
    }
  }
  return log.list(kept);
}

/**
 * What the last log made of one kind's reductions: its records merged up to `last`, the `count`-th reduction from the
 * region.
 */
interface KindMemo {
  list: ReadonlyArray<ViewReduction>;
  region: number;
  reason: string;
  count: number;
  last: ViewReduction | undefined;
  records: LoggedRecord[];
}

/**
 * The working view's reductions as a payload's log (in-context views, then micro-compacted results,
 * then placeholders of the tool output budget, from the region on, neighbours merged), kept from call
 * to call: a call merges only the reductions laid out since the last one. The view keeps each list
 * in place from call to call, cutting it where it lays positions out again and appending, so a list
 * whose reduction at the remembered end is still the same object is unchanged up to there. What was
 * merged before the position given as `remember` (where the current turn starts: the next call lays
 * out again only from there) is remembered.
 */
export class ViewReductionsLog {
  private readonly memos = new Map<Kind, KindMemo>();

  /** The log of `reductions` from `region` on. */
  log(reductions: ViewReductions, region: number, keepRecent: number, remember: number): ReductionLog {
    const log = new ReductionLog();
    for (const { kind, action } of KINDS)
      this.add(log, kind, action, reductions[kind], region, reasonOf(kind, keepRecent), remember);
    return log;
  }

  private add(
    log: ReductionLog,
    kind: Kind,
    action: 'truncated' | 'micro-compacted' | 'trimmed',
    list: ReadonlyArray<ViewReduction>,
    region: number,
    reason: string,
    remember: number,
  ): void {
    const first = firstAtOrAfter(list, region);
    const memo = this.memos.get(kind);
    const continues =
      memo !== undefined &&
      memo.list === list &&
      memo.region === region &&
      memo.reason === reason &&
      list.length >= first + memo.count &&
      (memo.count === 0 || list[first + memo.count - 1] === memo.last);
    const start = log.size;
    let index = first;
    if (continues) {
      log.append(memo.records);
      index += memo.count;
    }
    for (; index < list.length && list[index]!.position < remember; index++) log.addOne(action, reason, list[index]!);
    this.memos.set(kind, {
      list,
      region,
      reason,
      count: index - first,
      last: index > first ? list[index - 1] : undefined,
      records: log.copies(start),
    });
    for (; index < list.length; index++) log.addOne(action, reason, list[index]!);
  }
}
