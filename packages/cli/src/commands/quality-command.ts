import * as fs from 'node:fs';
import * as path from 'node:path';

import { SingleBar } from 'cli-progress';

import type { CliOutput } from '../cli-output';
import { renderQualityTable } from '../quality/quality-table';
import { renderRecallQualityTable } from '../quality/recall/recall-quality-table';
import { type RecallQualityResult, runRecallQuality } from '../quality/recall/run-recall-quality';
import { type QualityResult, runQuality } from '../quality/run-quality';
import { formatShare } from '../report/format-number';

/** The options of `ctxkit quality` (see docs/12-quality.md). */
export interface QualityCommandOptions {
  dataset?: string[];
  ceiling?: number[];
  strategy?: string[];
  limit?: number;
  json?: string;
  pluginDir?: string[];
  progress?: boolean;
  /** `facts` (facts kept when needed), `recall` (earlier turns recalled for a question); both by default. */
  section?: string[];
  /** Config keys per plugin id over each of its variants' (`--config <id>=<json>`). */
  config?: Record<string, Record<string, unknown>>;
}

/** The data sets of each section. */
const FACT_DATASETS = ['tau-bench', 'locomo', 'openhands'];
const RECALL_DATASETS = ['longmemeval', 'locomo'];

/** Where `ctxkit quality` writes its JSON unless told otherwise. */
export const DEFAULT_QUALITY_JSON = path.join('reports', 'quality.json');

/**
 * `ctxkit quality`: per data set × ceiling × strategy, the share of checkable facts present in the
 * payload when they are needed, against the sliding window; tokens per payload and budget
 * utilisation. Prints the table (progress on stderr) and writes the JSON.
 */
export async function qualityCommand(options: QualityCommandOptions, output: CliOutput): Promise<number> {
  const started = performance.now();
  const sections = options.section?.length ? options.section : ['facts', 'recall'];
  const only = (names: string[]) =>
    options.dataset?.length ? options.dataset.filter((name) => names.includes(name)) : undefined;
  const factDatasets = only(FACT_DATASETS);
  const recallDatasets = only(RECALL_DATASETS);
  const runsFacts = sections.includes('facts') && (factDatasets === undefined || factDatasets.length > 0);
  const runsRecall = sections.includes('recall') && (recallDatasets === undefined || recallDatasets.length > 0);
  const bar =
    options.progress !== false && output.interactive
      ? new SingleBar({
          format: 'measuring {bar} {percentage}% | {value}/{total} payloads | {label}',
          hideCursor: true,
          stream: process.stderr,
        })
      : undefined;
  let result: QualityResult = { rows: [], skipped: [], notes: [], llmDescription: '', counterDescription: '' };
  try {
    if (runsFacts)
      result = await runQuality({
        dataset: factDatasets,
        ceiling: options.ceiling,
        strategy: options.strategy,
        limit: options.limit,
        pluginDir: options.pluginDir,
        config: options.config,
        onStart: (total) => {
          if (bar) bar.start(total, 0, { label: '' });
          else if (options.progress !== false) output.err(`measuring ${total} payloads\n`);
        },
        onCall: (label) => bar?.increment(1, { label }),
        onRow: (row) => {
          if (!bar && options.progress !== false)
            output.err(
              `  ${row.dataset} · ${row.ceiling} ` +
                `· ${row.strategy}: ` +
                `${row.notMeasured ?? `${formatShare(row.share)} of ${row.factsChecked} facts (${row.seconds} s)`}\n`,
            );
        },
      });
  } finally {
    bar?.stop();
  }
  if (runsFacts) {
    for (const skipped of result.skipped) output.err(`skipped ${skipped.dataset}: ${skipped.reason}\n`);
    output.out(`Summaries and extraction: ${result.llmDescription}.\nToken counts: ${result.counterDescription}.\n`);
    output.out(`${renderQualityTable(result.rows, { color: output.color })}\n`);
    for (const note of result.notes) output.out(`Note: ${note}.\n`);
  }
  let recall: RecallQualityResult | undefined;
  if (runsRecall) {
    const recallBar =
      options.progress !== false && output.interactive
        ? new SingleBar({
            format: 'recall {bar} {percentage}% | {value}/{total} conversations | {label}',
            hideCursor: true,
            stream: process.stderr,
          })
        : undefined;
    try {
      recall = await runRecallQuality({
        dataset: recallDatasets,
        ceiling: options.ceiling,
        strategy: options.strategy,
        limit: options.limit,
        pluginDir: options.pluginDir,
        config: options.config,
        onStart: (total) => recallBar?.start(total, 0, { label: '' }),
        onStep: (label) => recallBar?.increment(1, { label }),
        onRow: (row) => {
          if (!recallBar && options.progress !== false)
            output.err(
              `  recall · ${row.dataset} · ${row.ceiling} · ${row.strategy}: ${formatShare(row.evidenceShare)} ` +
                `of ${row.evidenceTurns} evidence turns (${row.seconds} s)\n`,
            );
        },
      });
    } finally {
      recallBar?.stop();
    }
    for (const skipped of recall.skipped) output.err(`skipped ${skipped.dataset}: ${skipped.reason}\n`);
    output.out(
      'Recall of earlier turns: each question asked once after its conversation; evidence turns present in that ' +
        'payload, against plain BM25 at the same ceiling.\n',
    );
    output.out(`${renderRecallQualityTable(recall.rows, { color: output.color })}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const file = options.json ?? DEFAULT_QUALITY_JSON;
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ ...result, ...(recall ? { recall } : {}), seconds: Math.round(seconds) }, null, 2)}\n`,
  );
  output.out(`Results written to ${file} (${seconds.toFixed(0)} s).\n`);
  return 0;
}
