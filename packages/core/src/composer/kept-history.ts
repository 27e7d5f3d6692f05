import type { ReductionRecord } from '../contracts/llm-payload';

/** A range of history indexes, `[from, to)`. */
export interface HistoryRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The history a payload keeps, as ranges in order: `[0, length)` less every `dropped` record of the window's
 * reductions (the history before the strategy's start, what is older than the window, what lies between the head
 * kept in front of a cut window and the window, orphans, older steps of the current turn). A message the window
 * sends cut is kept.
 */
export function keptHistoryRanges(windowRecords: ReadonlyArray<ReductionRecord>, length: number): HistoryRange[] {
  const dropped = windowRecords
    .filter((record) => record.action === 'dropped' && record.to > record.from)
    .map((record) => ({ from: record.from, to: record.to }))
    .sort((a, b) => a.from - b.from);
  const kept: HistoryRange[] = [];
  let at = 0;
  for (const range of dropped) {
    if (range.from > at) kept.push({ from: at, to: Math.min(range.from, length) });
    at = Math.max(at, range.to);
  }
  if (at < length) kept.push({ from: at, to: length });
  return kept.filter((range) => range.to > range.from);
}
