import type { RecoverySource, ReductionAction, ReductionRecord } from '@ctxkit/core';
import type { HistoryRange } from '@ctxkit/core/strategy-kit';

/** One message a reduction was made at. */
export interface ReducedMessage {
  readonly position: number;
  readonly recoverableFrom: RecoverySource;
  readonly ref?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
}

/**
 * The reductions of one payload, listed merged: a run of messages added in position order with the same action, reason
 * and recovery source is one record (a sparse range: `messages` counts them), so that a report stays small.
 */
export class ReductionLog {
  // Parallel lists: each message's reduction is kept as it is given, so a log allocates nothing more.
  private readonly actions: ReductionAction[] = [];
  private readonly reasons: string[] = [];
  private readonly parts: ReducedMessage[] = [];

  add(action: ReductionAction, reason: string, reduction: ReducedMessage): void {
    this.actions.push(action);
    this.reasons.push(reason);
    this.parts.push(reduction);
  }

  /** The merged records, by `from` then action; with `kept` (ranges in order), only for the messages in it. */
  list(kept?: ReadonlyArray<HistoryRange>): ReductionRecord[] {
    const { actions, reasons, parts } = this;
    const records: ReductionRecord[] = [];
    let current: { range: number; record: ReductionRecord } | undefined;
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index]!;
      const { position, recoverableFrom } = part;
      const previous = parts[index - 1];
      const runGoesOn =
        previous !== undefined &&
        actions[index - 1] === actions[index] &&
        reasons[index - 1] === reasons[index] &&
        previous.recoverableFrom === recoverableFrom &&
        previous.position < position;
      if (!runGoesOn) current = undefined;
      // The kept range holding `position`, or the first after it.
      const range = kept ? firstNotBefore(kept, position, endsBy) : 0;
      if (kept && (range === kept.length || kept[range]!.from > position)) continue;
      if (current === undefined || current.range !== range) {
        const record = {
          action: actions[index]!,
          from: position,
          to: 0,
          messages: 0,
          reason: reasons[index]!,
          recoverableFrom,
        };
        current = { range, record };
        records.push(record);
      }
      const record: ReductionRecord = current.record;
      record.to = position + 1;
      record.messages++;
      if (part.ref !== undefined) (record.refs ??= []).push(part.ref);
      if (part.tokensBefore !== undefined) record.tokensBefore = (record.tokensBefore ?? 0) + part.tokensBefore;
      if (part.tokensAfter !== undefined) record.tokensAfter = (record.tokensAfter ?? 0) + part.tokensAfter;
    }
    return records.sort((a, b) => a.from - b.from || a.action.localeCompare(b.action));
  }
}

/**
 * One log alive for the life of the process. The engine drops an object shape none of whose objects survived a few
 * major collections, and the optimized code built on it: without this one, a turn's log ran unoptimized again after
 * each collection (at 10,000 messages and 128K, 60 to 180 µs a turn instead of 30).
 */
export const LIVE_SHAPE = new ReductionLog();

const endsBy = (range: HistoryRange, position: number) => range.to <= position;

/** The working view's reductions by kind, each list in position order. */
export interface ViewReductions {
  /** Outputs shown as an in-context view that cut them. */
  truncated: ReducedMessage[];
  /** Results micro-compacted at every payload (`microCompact.when: "always"`). */
  microCompacted: ReducedMessage[];
  /** Outputs over the tool output budget, shown as placeholders. */
  trimmed: ReducedMessage[];
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
  const within = (list: ReducedMessage[]) => list.filter(({ position }) => position >= from && position < to);
  return {
    truncated: within(reductions.truncated),
    microCompacted: within(reductions.microCompacted),
    trimmed: within(reductions.trimmed),
  };
}

/** The records of `reductions` at the positions of `kept` before `before` (a cut window's head: few, looked up). */
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
      const first = firstNotBefore(list, range.from, reducedBefore);
      for (let index = first; index < list.length && list[index]!.position < to; index++)
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

const reducedBefore = (reduced: ReducedMessage, position: number) => reduced.position < position;

/** Binary search: the index of the first item of `list` that is not `before` `position` (those that are come first). */
export function firstNotBefore<T>(
  list: ReadonlyArray<T>,
  position: number,
  before: (item: T, position: number) => boolean,
): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(list[middle]!, position)) low = middle + 1;
    else high = middle;
  }
  return low;
}
