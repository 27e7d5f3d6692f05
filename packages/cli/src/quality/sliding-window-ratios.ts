import type { QualityRow } from './quality-row';

/**
 * Fills each row's ratio to the sliding window's share at the same data set and ceiling (rows with `baselineLabel`).
 */
export function withSlidingWindowRatios(rows: readonly QualityRow[], baselineLabel: string): QualityRow[] {
  const baseline = new Map<string, number | null>();
  for (const row of rows) if (row.strategy === baselineLabel) baseline.set(`${row.dataset}@${row.ceiling}`, row.share);
  return rows.map((row) => {
    const base = baseline.get(`${row.dataset}@${row.ceiling}`);
    const ratio = row.share !== null && base !== undefined && base !== null && base > 0 ? row.share / base : null;
    return { ...row, ratioToSlidingWindow: ratio };
  });
}
