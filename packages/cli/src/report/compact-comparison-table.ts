import Table from 'cli-table3';
import wrapAnsi from 'wrap-ansi';

import type { StrategySummary } from '../lab/strategy-summary';
import { formatDollars, formatNumber, formatShare } from './format-number';
import { TERMINAL_COLUMNS, wrapToColumns } from './terminal-width';

/**
 * Widths of the columns after the strategy (content plus the cell's padding): tokens, saved, facts, cache hits, cost,
 * payloads.
 */
const FIXED = [17, 7, 8, 8, 9, 11];
/** Strategy labels longer than this (30 with these columns) wrap inside their cell: 7 columns take 8 borders. */
const LONGEST_LABEL = TERMINAL_COLUMNS - FIXED.reduce((a, b) => a + b, 0) - (FIXED.length + 2) - 2;

/**
 * The comparison as it fits a 100-column terminal: one table per transcript under a line that says
 * what every row shares (conversations, model calls, window), and per strategy the columns a choice
 * rests on: tokens per call (mean · p95), tokens saved, facts kept, cache hits over all calls, input cost per
 * conversation with cache hits, and whether every payload was sent, valid and in budget. The other
 * columns are in {@link renderWideComparisonTable} (`--wide`) and the HTML report.
 */
export function renderCompactComparisonTable(
  summaries: readonly StrategySummary[],
  options: { color?: boolean } = {},
): string {
  const datasets = [...new Set(summaries.map((row) => row.dataset))];
  const prices = [
    ...new Set(summaries.flatMap((row) => (row.inputCostPerConversation ? [row.inputCostPerConversation.price] : []))),
  ];
  const ttls = summaries.flatMap((row) =>
    row.inputCostPerConversation ? [row.inputCostPerConversation.cacheTtl] : [],
  );
  const blocks = datasets.map((dataset) => {
    const rows = summaries.filter((row) => row.dataset === dataset);
    const first = rows[0]!;
    const heading =
      `${dataset}: ${formatNumber(first.conversations)} ` +
      `conversation${first.conversations === 1 ? '' : 's'}, ${formatNumber(first.calls)} model calls per ` +
      `strategy, window ${formatNumber(first.window)} tokens`;
    const label = Math.min(LONGEST_LABEL, Math.max('strategy'.length, ...rows.map((row) => row.label.length)));
    const table = new Table({
      head: [
        'strategy',
        'tokens/call\nmean · p95',
        'saved',
        'facts\nkept',
        'cache\nhits',
        'input\n$/conv.',
        'payloads',
      ],
      colWidths: [label + 2, ...FIXED],
      wordWrap: true,
      // no rule between rows: a short table reads as one block
      chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
      style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
    });
    for (const row of rows) {
      table.push([
        wrapAnsi(row.label, label, { hard: true }),
        `${formatNumber(row.tokensPerCall.mean)} · ${formatNumber(row.tokensPerCall.p95)}`,
        formatShare(row.savedShare),
        formatShare(row.factRetention),
        formatShare(row.cacheHitRatio),
        row.inputCostPerConversation ? formatDollars(row.inputCostPerConversation.withCache) : 'n/a',
        payloadsCell(row),
      ]);
    }
    return `${wrapToColumns(heading)}\n${table.toString()}`;
  });
  const legend =
    'facts kept: checkable facts in the payload when needed · cache hits: input tokens a prompt cache serves, over ' +
    'all calls · ' +
    `input $/conv.: with cache reads and writes ` +
    `priced${prices.length ? ` (${prices.join(', ')})` : ''}${ttls.includes('1h') ? ', 1-hour writes' : ''} ` +
    `· payloads: ok when every call sent a valid payload within budget. ` +
    'Every column (reductions, epochs, receipts, ms/call): --wide, or the HTML report (--report).';
  return `${blocks.join('\n\n')}\n${wrapToColumns(legend)}`;
}

/**
 * `ok`, or what went wrong: rejected calls, invalid or over-budget payloads; with pins checked, the calls that kept
 * them.
 */
function payloadsCell(row: StrategySummary): string {
  const problems = [
    row.rejectedCalls > 0 ? `${formatNumber(row.rejectedCalls)} rejected` : '',
    row.invalidPayloads > 0 ? `${formatNumber(row.invalidPayloads)} invalid` : '',
    row.overBudgetPayloads > 0 ? `${formatNumber(row.overBudgetPayloads)} over budget` : '',
  ].filter(Boolean);
  const pins = row.control.pins
    ? [`pins ${formatNumber(row.control.pins.kept)}/${formatNumber(row.control.pins.calls)}`]
    : [];
  return [...(problems.length ? problems : ['ok']), ...pins].join(', ');
}
