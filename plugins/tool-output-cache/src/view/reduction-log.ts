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
 * The reductions of one payload, one message at a time, listed merged: a run of messages added in position order with
 * the same action, reason and recovery source is one record (a sparse range: `messages` counts the ones affected), so a
 * report stays small when every older output is a placeholder.
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

  /**
   * The merged records, sorted by `from` then action. With `kept` (the history a payload keeps, ranges in order), only
   * for the messages in it: a record spans no message the payload leaves out.
   */
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
      const range = kept ? rangeAt(kept, position) : 0;
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

/** Index of the kept range holding `position`, or of the first after it. */
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
