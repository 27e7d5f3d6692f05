import type { ReductionCause, ReductionRecord } from '../contracts/llm-payload';
import type { MemoryBlock } from './memory-block';

/**
 * History left out of the window that a sent memory block stands for is reported as what the block
 * did with it (`summarized` into the summary, `extracted` into the entity state) rather than as a
 * plain drop: each `dropped` record whose cause is in `older` is split at the block's `covers.until`.
 */
export function relabelCoveredDrops(
  records: ReductionRecord[],
  older: ReadonlySet<ReductionCause>,
  blocks: ReadonlyArray<MemoryBlock>,
): ReductionRecord[] {
  let out = records;
  const recalls = blocks.flatMap((block) => block.recalls ?? []);
  if (recalls.length > 0) out = relabelRecalled(out, older, recalls);
  for (const block of blocks) {
    const covers = block.covers;
    if (!covers || covers.until <= 0) continue;
    const next: ReductionRecord[] = [];
    for (const record of out) {
      if (
        record.action !== 'dropped' ||
        record.cause === undefined ||
        !older.has(record.cause) ||
        record.from >= covers.until
      ) {
        next.push(record);
        continue;
      }
      const end = Math.min(record.to, covers.until);
      next.push({
        action: covers.action,
        from: record.from,
        to: end,
        messages: end - record.from,
        tokensAfter: 0,
        reason: covers.reason,
        recoverableFrom: covers.recoverableFrom,
        ...(covers.refs ? { refs: [...covers.refs] } : {}),
        cause: 'covered-by-memory',
      });
      if (end < record.to) next.push({ ...record, from: end, messages: record.to - end });
    }
    out = next;
  }
  return out;
}

/**
 * `records` with the parts of the dropped records of an `older` cause that lie in a recalled range reported as
 * `recalled` (sent again in a recall block), the rest as it was; each record finds its ranges by a
 * binary search.
 */
function relabelRecalled(
  records: ReductionRecord[],
  older: ReadonlySet<ReductionCause>,
  recalls: ReadonlyArray<{ from: number; to: number; reason: string }>,
): ReductionRecord[] {
  const ranges = [...recalls].sort((a, b) => a.from - b.from);
  const out: ReductionRecord[] = [];
  for (const record of records) {
    if (record.action !== 'dropped' || record.cause === undefined || !older.has(record.cause)) {
      out.push(record);
      continue;
    }
    // The first range that ends after the record starts (ranges do not overlap: units are disjoint).
    let low = 0;
    let high = ranges.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (ranges[middle]!.to <= record.from) low = middle + 1;
      else high = middle;
    }
    let at = record.from;
    for (let index = low; index < ranges.length && ranges[index]!.from < record.to; index++) {
      const range = ranges[index]!;
      const from = Math.max(at, range.from);
      const to = Math.min(record.to, range.to);
      if (from >= to) continue;
      if (at < from) out.push({ ...record, from: at, to: from, messages: from - at });
      out.push({
        action: 'recalled',
        from,
        to,
        messages: to - from,
        reason: range.reason,
        recoverableFrom: 'history',
        cause: 'recalled',
      });
      at = to;
    }
    if (at === record.from) out.push(record);
    else if (at < record.to) out.push({ ...record, from: at, to: record.to, messages: record.to - at });
  }
  return out;
}
