import type { StrategySummary } from '../lab/strategy-summary';
import { formatNumber } from './format-number';

/** The table's calls cell: the count, and for rejections how many and their codes. */
export function callsCell(row: StrategySummary): string {
  if (row.rejectedCalls === 0) return formatNumber(row.calls);
  return (
    `${formatNumber(row.calls)} (${formatNumber(row.rejectedCalls)} ` +
    `rejected: ${row.rejections.map((reason) => reason.code).join(', ')})`
  );
}

/**
 * Why calls were rejected, under the comparison table: per strategy and transcript, each error
 * code with its number of calls and the first line of its message (which ends with the fix).
 * Empty when no call was rejected.
 */
export function renderRejectedCalls(summaries: readonly StrategySummary[]): string {
  const rows = summaries.filter((row) => row.rejectedCalls > 0);
  if (rows.length === 0) return '';
  const lines = ['Rejected calls (composePayload threw a typed error; nothing was sent):'];
  for (const row of rows) {
    lines.push(
      `  ${row.dataset} · ${row.label}: ${formatNumber(row.rejectedCalls)} of ${formatNumber(row.calls)} calls`,
    );
    for (const reason of row.rejections)
      lines.push(`    ${reason.code} (${formatNumber(reason.calls)}): ${reason.message}`);
  }
  return `${lines.join('\n')}\n`;
}
