import type { RecoverySource, ReductionAction, ReductionRecord } from '@ctxkit/core';

/**
 * Collects the reductions of one payload and merges them: a record of the same action, reason and
 * recovery source as the one added just before, and not before it, extends that one's range (a
 * sparse range when indexes lie between: `messages` counts the ones affected), so a report stays
 * small on a long history where every older output became a placeholder.
 */
export class ReductionLog {
  private readonly records: ReductionRecord[] = [];

  /** Records made so far. */
  get size(): number {
    return this.records.length;
  }

  /** The record made last (merged into by the next one of its kind), if any. */
  get newest(): Readonly<ReductionRecord> | undefined {
    return this.records[this.records.length - 1];
  }

  /**
   * Copies of the records from the `from`-th on, in the order they were made (what a later log can go on from, see
   * {@link append}).
   */
  copies(from = 0): ReductionRecord[] {
    return this.records.slice(from).map(copyRecord);
  }

  /**
   * Copies of `records` (made by a log of the same kind, see {@link copies}) become this log's newest, as they are: the
   * next record added may merge with the last of them.
   */
  append(records: ReadonlyArray<ReductionRecord>): void {
    for (const record of records) this.records.push(copyRecord(record));
  }

  /** Records one message (or a range `[from, to)`). */
  add(
    action: ReductionAction,
    range: { from: number; to?: number },
    details: {
      reason: string;
      recoverableFrom: RecoverySource;
      refs?: string[];
      tokensBefore?: number;
      tokensAfter?: number;
    },
  ): void {
    const from = range.from;
    const to = range.to ?? from + 1;
    const last = this.records[this.records.length - 1];
    if (
      last &&
      last.action === action &&
      last.reason === details.reason &&
      last.recoverableFrom === details.recoverableFrom &&
      last.to <= from
    ) {
      last.to = to;
      last.messages += to - from;
      // The record's refs are its own array (copied when it was made): appended to in place.
      if (details.refs?.length) {
        if (last.refs) for (const ref of details.refs) last.refs.push(ref);
        else last.refs = [...details.refs];
      }
      if (details.tokensBefore !== undefined) last.tokensBefore = (last.tokensBefore ?? 0) + details.tokensBefore;
      if (details.tokensAfter !== undefined) last.tokensAfter = (last.tokensAfter ?? 0) + details.tokensAfter;
      return;
    }
    const record: ReductionRecord = {
      action,
      from,
      to,
      messages: to - from,
      reason: details.reason,
      recoverableFrom: details.recoverableFrom,
    };
    if (details.refs?.length) record.refs = [...details.refs];
    if (details.tokensBefore !== undefined) record.tokensBefore = details.tokensBefore;
    if (details.tokensAfter !== undefined) record.tokensAfter = details.tokensAfter;
    this.records.push(record);
  }

  /** Records one message at `reduction.position`, as {@link add} does (without the objects it takes). */
  addOne(
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
  }

  /** The records, sorted by `from` then action. */
  list(): ReductionRecord[] {
    return [...this.records].sort((a, b) => a.from - b.from || a.action.localeCompare(b.action)).map(copyRecord);
  }

  /** Messages affected by the given actions. */
  count(...actions: ReductionAction[]): number {
    return this.records
      .filter((record) => actions.includes(record.action))
      .reduce((sum, record) => sum + record.messages, 0);
  }
}

/** A record and its refs copied (the keys in the same order). */
function copyRecord(record: ReductionRecord): ReductionRecord {
  return { ...record, ...(record.refs ? { refs: [...record.refs] } : {}) };
}
