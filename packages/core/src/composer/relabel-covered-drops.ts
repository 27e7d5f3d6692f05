import type { ReductionRecord } from '../contracts/llm-payload';
import type { MemoryBlock } from './memory-block';

/**
 * History left out of the window that a sent memory block stands for is reported as what the block
 * did with it (`summarized` into the summary, `extracted` into the entity state) rather than as a
 * plain drop: each `dropped` record of `older` is split at the block's `covers.until`.
 */
export function relabelCoveredDrops(records: ReductionRecord[], older: ReadonlySet<string>, blocks: ReadonlyArray<MemoryBlock>): ReductionRecord[] {
  let out = records;
  for (const block of blocks) for (const range of block.recalls ?? []) out = relabelRange(out, older, range);
  for (const block of blocks) {
    const covers = block.covers;
    if (!covers || covers.until <= 0) continue;
    const next: ReductionRecord[] = [];
    for (const record of out) {
      if (record.action !== 'dropped' || !older.has(record.reason) || record.from >= covers.until) {
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
      });
      if (end < record.to) next.push({ ...record, from: end, messages: record.to - end });
    }
    out = next;
  }
  return out;
}

/**
 * `records` with the part of each dropped record of `older` inside `range` reported as `recalled`
 * (sent again in a recall block), the rest as it was.
 */
function relabelRange(records: ReductionRecord[], older: ReadonlySet<string>, range: { from: number; to: number; reason: string }): ReductionRecord[] {
  const out: ReductionRecord[] = [];
  for (const record of records) {
    if (record.action !== 'dropped' || !older.has(record.reason) || record.to <= range.from || record.from >= range.to) {
      out.push(record);
      continue;
    }
    const from = Math.max(record.from, range.from);
    const to = Math.min(record.to, range.to);
    if (record.from < from) out.push({ ...record, to: from, messages: from - record.from });
    out.push({ action: 'recalled', from, to, messages: to - from, reason: range.reason, recoverableFrom: 'history' });
    if (to < record.to) out.push({ ...record, from: to, messages: record.to - to });
  }
  return out;
}
