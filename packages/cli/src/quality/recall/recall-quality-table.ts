import Table from 'cli-table3';

import { formatNumber, formatShare } from '../../report/format-number';
import type { RecallQualityRow } from './run-recall-quality';

/**
 * The recall section as a terminal table: per data set × ceiling × strategy, the share of evidence
 * turns present in the payload composed for their question, that share over the plain-BM25
 * reference's, the bar it is held to (1.1× the reference or halfway from it to 100%, the lower), and
 * the share of short answers present.
 */
export function renderRecallQualityTable(rows: readonly RecallQualityRow[], options: { color?: boolean } = {}): string {
  const table = new Table({
    head: [
      'data set',
      'ceiling',
      'strategy',
      'questions',
      'evidence\nturns',
      'present',
      'vs\nreference',
      'bar',
      'answers\npresent',
      'tokens per\npayload',
    ],
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const row of rows) {
    table.push([
      row.dataset,
      formatNumber(row.ceiling),
      row.strategy,
      formatNumber(row.questions),
      formatNumber(row.evidenceTurns),
      formatShare(row.evidenceShare),
      row.ratioToReference === null ? '' : `${row.ratioToReference.toFixed(2)}×`,
      row.target === null ? '' : `${formatShare(row.target)}${row.evidenceShare + 1e-9 >= row.target ? ' ✓' : ''}`,
      row.answerShare === null ? 'n/a' : `${formatShare(row.answerShare)} of ${formatNumber(row.answersChecked)}`,
      formatNumber(row.meanTokens),
    ]);
  }
  return table.toString();
}
