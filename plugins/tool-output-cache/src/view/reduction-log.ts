import type { RecoverySource, ReductionAction, ReductionRecord } from '@ctxkit/core';
import type { HistoryRange } from '@ctxkit/core/strategy-kit';

/** What one `add` put into a record: the message at `position`, its ref, its tokens. */
interface Part {
  readonly position: number;
  readonly ref?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
}

/**
 * Collects the reductions of one payload and merges them: a record of the same action, reason and
 * recovery source as the one added just before, and not before it, extends that one's range (a
 * sparse range when indexes lie between: `messages` counts the ones affected), so a report stays
 * small on a long history where every older output became a placeholder. Each record keeps what it was
 * merged from, so that it can be listed for the history a payload keeps only ({@link list}).
 */
export class ReductionLog {
  private readonly records: ReductionRecord[] = [];
  /** The parts of each record, by the record's index. */
  private readonly parts: Part[][] = [];

  /** Records one message at `reduction.position`. */
  add(
    action: ReductionAction,
    reason: string,
    reduction: {
      position: number;
      recoverableFrom: RecoverySource;
      ref?: string;
      tokensBefore?: number;
      tokensAfter?: number;
    },
  ): void {
    const from = reduction.position;
    const last = this.records[this.records.length - 1];
    if (
      last &&
      last.action === action &&
      last.reason === reason &&
      last.recoverableFrom === reduction.recoverableFrom &&
      last.to <= from
    ) {
      // The reduction itself is the part (its fields are a part's): a log made call after call allocates nothing more.
      this.parts[this.parts.length - 1]!.push(reduction);
      last.to = from + 1;
      last.messages++;
      if (reduction.ref !== undefined) (last.refs ??= []).push(reduction.ref);
      if (reduction.tokensBefore !== undefined) last.tokensBefore = (last.tokensBefore ?? 0) + reduction.tokensBefore;
      if (reduction.tokensAfter !== undefined) last.tokensAfter = (last.tokensAfter ?? 0) + reduction.tokensAfter;
      return;
    }
    const record: ReductionRecord = {
      action,
      from,
      to: from + 1,
      messages: 1,
      reason,
      recoverableFrom: reduction.recoverableFrom,
    };
    if (reduction.ref !== undefined) record.refs = [reduction.ref];
    if (reduction.tokensBefore !== undefined) record.tokensBefore = reduction.tokensBefore;
    if (reduction.tokensAfter !== undefined) record.tokensAfter = reduction.tokensAfter;
    this.records.push(record);
    this.parts.push([reduction]);
  }

  /**
   * The records, sorted by `from` then action. With `kept` (the history a payload keeps, ranges in order), only for
   * the messages in it: a record reaching outside is made again from its parts in `kept`, one record per kept range
   * (a record spans no message the payload leaves out), and none when no part is kept.
   */
  list(kept?: ReadonlyArray<HistoryRange>): ReductionRecord[] {
    const records: ReductionRecord[] = [];
    this.records.forEach((record, index) => {
      if (kept === undefined || within(kept, record.from, record.to)) records.push(copyRecord(record));
      else clip(record, this.parts[index]!, kept, records);
    });
    return records.sort((a, b) => a.from - b.from || a.action.localeCompare(b.action));
  }
}

/**
 * One log alive for the life of the process. A turn's log lives only during the turn, and the engine drops an object
 * shape no object of which survived a few major collections, and the optimized code built on it: without this one,
 * every turn of a long conversation ran its reduction bookkeeping unoptimized again after each collection (at 10,000
 * messages and 128K, the view's log took 60 to 180 µs a turn instead of 30).
 */
export const LIVE_SHAPE = new ReductionLog();

/** Index of the kept range holding `position`, or of the first after it (binary search). */
function rangeAt(kept: ReadonlyArray<HistoryRange>, position: number): number {
  let low = 0;
  let high = kept.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (kept[middle]!.to <= position) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** True when `[from, to)` lies in one kept range. */
function within(kept: ReadonlyArray<HistoryRange>, from: number, to: number): boolean {
  const range = kept[rangeAt(kept, from)];
  return range !== undefined && range.from <= from && to <= range.to;
}

/** The records of `record`'s parts in `kept`, one per kept range they lie in, pushed to `into`. */
function clip(
  record: ReductionRecord,
  parts: ReadonlyArray<Part>,
  kept: ReadonlyArray<HistoryRange>,
  into: ReductionRecord[],
): void {
  let current: { range: number; record: ReductionRecord } | undefined;
  for (const part of parts) {
    const { position } = part;
    const index = rangeAt(kept, position);
    if (index === kept.length || kept[index]!.from > position) continue;
    if (current === undefined || current.range !== index) {
      const { action, reason, recoverableFrom } = record;
      current = {
        range: index,
        record: { action, from: position, to: position + 1, messages: 0, reason, recoverableFrom },
      };
      into.push(current.record);
    }
    const made = current.record;
    made.to = position + 1;
    made.messages++;
    if (part.ref !== undefined) (made.refs ??= []).push(part.ref);
    if (part.tokensBefore !== undefined) made.tokensBefore = (made.tokensBefore ?? 0) + part.tokensBefore;
    if (part.tokensAfter !== undefined) made.tokensAfter = (made.tokensAfter ?? 0) + part.tokensAfter;
  }
}

/** A record and its refs copied (the keys in the same order). */
function copyRecord(record: ReductionRecord): ReductionRecord {
  return { ...record, ...(record.refs ? { refs: [...record.refs] } : {}) };
}
