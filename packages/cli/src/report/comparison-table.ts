import Table from 'cli-table3';

import type { StrategySummary } from '../lab/strategy-summary';
import { renderCompactComparisonTable } from './compact-comparison-table';
import { formatDollars, formatNumber, formatShare } from './format-number';
import { callsCell } from './rejected-calls';

/** How the terminal table is drawn. */
export interface ComparisonTableOptions {
  color?: boolean;
  /**
   * Every column, one row per strategy per transcript (about 300 columns); by default the table fits 100 columns.
   * @default false
   */
  wide?: boolean;
}

/**
 * The comparison as a terminal table: by default grouped per transcript and within 100 columns
 * ({@link renderCompactComparisonTable}); with `wide`, every column ({@link renderWideComparisonTable}).
 */
export function renderComparisonTable(
  summaries: readonly StrategySummary[],
  options: ComparisonTableOptions = {},
): string {
  return options.wide
    ? renderWideComparisonTable(summaries, options)
    : renderCompactComparisonTable(summaries, options);
}

/** Every column, one row per strategy per transcript (rejected calls with their codes). */
export function renderWideComparisonTable(
  summaries: readonly StrategySummary[],
  options: { color?: boolean } = {},
): string {
  const table = new Table({
    head: [
      'transcript',
      'strategy',
      'window',
      'calls',
      'tokens/call\nmean · p95 · max',
      'saved',
      'dropped · summ. · trimmed',
      'valid ·\nin budget',
      'fact\nretention',
      'cache hits\nall calls',
      'cached\nprefix',
      'input $/conv.\ncached · not',
      'epochs · receipts\n· pins kept',
      'ms/call',
    ],
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const row of summaries) {
    const sent = row.calls - row.rejectedCalls;
    table.push([
      row.dataset,
      row.label,
      formatNumber(row.window),
      callsCell(row),
      `${formatNumber(row.tokensPerCall.mean)} · ${formatNumber(row.tokensPerCall.p95)} ` +
        `· ${formatNumber(row.tokensPerCall.max)}`,
      formatShare(row.savedShare),
      `${formatNumber(row.dropped)} · ${formatNumber(row.summarized)} · ${formatNumber(row.trimmed)}`,
      `${sent - row.invalidPayloads}/${sent} · ${sent - row.overBudgetPayloads}/${sent}`,
      row.factRetention === null ? 'n/a' : formatShare(row.factRetention),
      row.cacheHitRatio === null ? 'n/a' : formatShare(row.cacheHitRatio),
      row.repeatedPrefixShare === null ? 'n/a' : formatShare(row.repeatedPrefixShare),
      row.inputCostPerConversation
        ? `${formatDollars(row.inputCostPerConversation.withCache)} ` +
          `· ${formatDollars(row.inputCostPerConversation.withoutCache)}`
        : 'n/a',
      `${formatNumber(row.control.epochs)} · ${formatNumber(row.control.receipts)} · ${pinsKept(row)}`,
      row.msPerCall.mean.toFixed(2),
    ]);
  }
  return table.toString();
}

/** Calls whose payload held every pin, of the calls made with pins: `200/200`; `n/a` when pins were not checked. */
export function pinsKept(row: StrategySummary): string {
  const pins = row.control.pins;
  return pins === null ? 'n/a' : `${formatNumber(pins.kept)}/${formatNumber(pins.calls)}`;
}
