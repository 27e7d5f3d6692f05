import Table from 'cli-table3';

import { formatNumber, formatShare } from '../report/format-number';
import { TOOL_OUTPUT_CACHE_ID } from './quality-datasets';
import type { QualityRow } from './quality-row';

/** The harness's results as a terminal table, one row per data set × ceiling × strategy variant. */
export function renderQualityTable(rows: readonly QualityRow[], options: { color?: boolean } = {}): string {
  const table = new Table({
    head: [
      'data set',
      'ceiling',
      'strategy',
      'facts\nchecked',
      'present\n(strict)',
      'vs sliding\nwindow',
      'recoverable\n(cache ref)',
      'tokens per\npayload',
      'budget\nutilisation',
      'threw',
    ],
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const row of rows) {
    if (row.notMeasured) {
      table.push([row.dataset, formatNumber(row.ceiling), row.strategy, { colSpan: 7, content: row.notMeasured }]);
      continue;
    }
    const threw = Object.entries(row.errors)
      .map(([code, count]) => `${count} ${code}`)
      .join('\n');
    table.push([
      row.dataset,
      formatNumber(row.ceiling),
      row.strategy,
      formatNumber(row.factsChecked),
      formatShare(row.share),
      row.ratioToSlidingWindow === null ? 'n/a' : `${row.ratioToSlidingWindow.toFixed(2)}×`,
      row.pluginId === TOOL_OUTPUT_CACHE_ID ? formatNumber(row.factsRecoverable) : '',
      formatNumber(row.meanTokens),
      row.meanUtilisation === null
        ? 'n/a'
        : `${formatShare(row.meanUtilisation)} of ${formatNumber(row.reducedPayloads)}`,
      threw || '0',
    ]);
  }
  return table.toString();
}
