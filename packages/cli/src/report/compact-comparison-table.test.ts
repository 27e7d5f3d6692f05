import { callObservation } from '../__fixtures__/call-observation';
import type { CallObservation } from '../lab/call-observation';
import { type StrategySummary, summarizeObservations } from '../lab/strategy-summary';
import { renderComparisonTable } from './comparison-table';
import { TERMINAL_COLUMNS } from './terminal-width';

/** Display width of a line without colours: every character the table draws is one column wide. */
const width = (line: string) => Array.from(line).length;

/**
 * The table's rows, each as its cells with their wrapped lines joined by a space: a row starts on
 * the line where the "saved" cell (never wrapped) is filled.
 */
function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split('\n').filter((l) => l.startsWith('│'))) {
    const cells = line
      .split('│')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells[2] !== '') rows.push(cells);
    else cells.forEach((cell, index) => cell && (rows.at(-1)![index] = `${rows.at(-1)![index]} ${cell}`.trim()));
  }
  return rows;
}

function sent(call: number, sentTokens: number, fields: Partial<CallObservation> = {}): CallObservation {
  return callObservation({
    call,
    sentTokens,
    everythingTokens: 20_000,
    factsActive: 2,
    factsPresent: 1,
    fitsWhole: false,
    repeatedPrefixTokens: sentTokens / 2,
    ...fields,
  });
}

function row(label: string, dataset: string, observations: CallObservation[]): StrategySummary {
  return summarizeObservations(label, label, dataset, 131_072, 1_234, observations, {
    key: 'anthropic:claude-sonnet-4',
    price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75 },
  });
}

describe('renderComparisonTable', () => {
  const rejected = { code: 'CTXKIT_BUDGET_EXCEEDED', message: 'too big. Fix: Raise maxContextTokens.' };
  const summaries = [
    row('std-tool-output-cache-strategy', 'openhands-multi-swe-bench', [sent(0, 123_456), sent(1, 98_765)]),
    row('my-company-customer-support-pinned-notes-strategy', 'openhands-multi-swe-bench', [
      sent(0, 1000),
      callObservation({ call: 1, error: rejected }),
    ]),
    row('std-sliding-window-strategy', 'tau-bench-airline', [
      sent(0, 1000, { problems: ['orphan tool result'], overBudget: true, pins: { active: 1, kept: 1 } }),
    ]),
  ];

  it(`fits ${TERMINAL_COLUMNS} columns by default, long strategy ids and problems wrapping inside their cells`, () => {
    const text = renderComparisonTable(summaries);
    for (const line of text.split('\n')) expect(width(line)).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    const rows = tableRows(text);
    // the long id is wrapped, not cut
    expect(rows.map((cells) => cells[0]!.replace(/ /g, ''))).toContain(
      'my-company-customer-support-pinned-notes-strategy',
    );
    expect(rows.map((cells) => cells[6])).toEqual([
      'payloads',
      'ok',
      '1 rejected',
      'payloads',
      '1 invalid, 1 over budget, pins 1/1',
    ]);
  });

  it('groups rows per transcript under a line with what they share, and shows the columns a choice rests on', () => {
    const text = renderComparisonTable(summaries);
    expect(text).toContain(
      'openhands-multi-swe-bench: 1,234 conversations, 2 model calls per strategy, window 131,072 tokens',
    );
    expect(text).toContain('tau-bench-airline: 1,234 conversations, 1 model calls per strategy, window 131,072 tokens');
    const tool = tableRows(text).find((cells) => cells[0] === 'std-tool-output-cache-strategy')!;
    const { inputCostPerConversation, savedShare } = summaries[0]!;
    // six-digit token counts wrap inside their cell
    expect(tool).toEqual([
      'std-tool-output-cache-strategy',
      '111,111 · 123,456',
      `${(savedShare * 100).toFixed(1)}%`,
      '50.0%',
      '50.0%',
      `$${inputCostPerConversation!.withCache.toFixed(4)}`,
      'ok',
    ]);
    expect(text).toContain('(anthropic:claude-sonnet-4)');
    // the columns left to --wide
    expect(text).not.toContain('ms/call │');
    expect(text).not.toContain('dropped · summ.');
  });

  it('with wide, draws every column, one row per strategy per transcript', () => {
    const text = renderComparisonTable(summaries, { wide: true });
    expect(text).toContain('dropped · summ. · trimmed');
    expect(text).toContain('ms/call');
    expect(text).toContain('2 (1 rejected: CTXKIT_BUDGET_EXCEEDED)');
    expect(Math.max(...text.split('\n').map(width))).toBeGreaterThan(TERMINAL_COLUMNS);
  });
});
