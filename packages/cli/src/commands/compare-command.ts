import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  createContextRuntime,
  createTokenCounter,
  MemoryContextStore,
  PluginNotFoundError,
  type ReductionEpoch,
} from '@ctxkit/core';
import { SingleBar } from 'cli-progress';

import type { CliOutput } from '../cli-output';
import { autoWindow } from '../lab/auto-window';
import { bundledTranscripts } from '../lab/bundled-transcripts';
import type { CallObservation } from '../lab/call-observation';
import { datasetFamily, datasetName } from '../lab/dataset-family';
import { isExamplePlugin } from '../lab/example-plugin';
import { type CacheTtl, priceOf, readPriceTable } from '../lab/input-price';
import { labConfig, type LabPlugin, presetWindow } from '../lab/lab-config';
import type { MessageShape } from '../lab/message-shape';
import { printSkipped } from '../lab/print-skipped';
import { readTranscript } from '../lab/read-transcript';
import { replayConversation } from '../lab/replay-conversation';
import { replayPoints } from '../lab/replay-points';
import { resolveLabLLM } from '../lab/resolve-llm';
import { sessionIdFor } from '../lab/session-id';
import { type StrategySummary, summarizeObservations } from '../lab/strategy-summary';
import { mergeConfig, readSweepGrid, type SweepConfiguration, sweepConfigurations } from '../lab/sweep-grid';
import { renderComparisonTable } from '../report/comparison-table';
import { renderHtmlReport } from '../report/html-report';
import { renderRejectedCalls } from '../report/rejected-calls';
import { wrapToColumns } from '../report/terminal-width';

/** The options of `ctxkit compare` (see docs/11-cli.md). */
export interface CompareOptions {
  transcript?: string[];
  /** The message shape of every transcript. @default detected per conversation */
  format?: MessageShape;
  window?: number;
  report?: string;
  json?: string;
  /** Only these plugin ids; without it, every installed strategy but the examples (see {@link isExamplePlugin}). */
  strategy?: string[];
  limit?: number;
  pluginDir?: string[];
  llm?: 'auto' | 'offline' | 'env';
  progress?: boolean;
  /** Exit 0 even when calls were rejected (they are still reported). @default false */
  allowRejections?: boolean;
  /** A price table file (the bundled one's shape). @default packages/cli/presets/provider-prices.json */
  prices?: string;
  /** The `provider:model` entry of the price table to estimate input cost with. @default the table's `default` */
  price?: string;
  /** The time to live of the cache writes priced (Anthropic's one-hour writes cost more). @default '5m' */
  cacheTtl?: CacheTtl;
  /** Pin each conversation's first user message and report the calls whose payload kept it. @default false */
  pinFirstUser?: boolean;
  /** Config keys per plugin id, over the lab's config for it (`--config <id>=<json>`). */
  config?: Record<string, Record<string, unknown>>;
  /** Print every column of the terminal table instead of the 100-column one. @default false */
  wide?: boolean;
  /**
   * Run each strategy in every configuration of the sweep grid (its defaults first), one row each,
   * and draw each strategy's frontier of facts kept against input cost in the report. @default false
   */
  sweep?: boolean;
  /** The sweep grid file (the bundled one's shape); implies `sweep`. @default packages/cli/presets/sweep-grids.json */
  grid?: string;
}

/** The comparison's results, for callers that render them themselves. */
export interface ComparisonResult {
  summaries: StrategySummary[];
  llmDescription: string;
  counterDescription: string;
  notes: Record<string, string>;
}

/**
 * Runs every installed strategy but the examples (or those named) on the same conversations and
 * summarises each: tokens sent per call, tokens saved, reductions, payload validity, fact retention, time.
 */
export async function runComparison(options: CompareOptions, output: CliOutput): Promise<ComparisonResult> {
  const files = options.transcript?.length ? options.transcript : bundledTranscripts();
  const prices = readPriceTable(options.prices);
  const price = {
    key: options.price ?? prices.default,
    price: priceOf(prices, options.price),
    cacheTtl: options.cacheTtl ?? '5m',
  };
  const lab = resolveLabLLM(options.llm ?? 'auto');
  const runtime = await createContextRuntime({ pluginDirs: options.pluginDir, llm: lab.llm });
  const counter = createTokenCounter({ model: 'gpt-4o' });
  const meta = counter.meta();
  const installed = runtime.listPlugins();
  const wanted = options.strategy?.length
    ? installed.filter((plugin) => options.strategy!.includes(plugin.id))
    : installed.filter((plugin) => !isExamplePlugin(plugin));
  if (options.strategy?.length && wanted.length !== options.strategy.length) {
    const missing = options.strategy.find((id) => !installed.some((plugin) => plugin.id === id))!;
    throw new PluginNotFoundError(missing, installed.map((plugin) => plugin.id).sort(), '--strategy');
  }
  const overrides = options.config ?? {};
  const unknown = Object.keys(overrides).find((id) => !installed.some((plugin) => plugin.id === id));
  if (unknown !== undefined)
    throw new PluginNotFoundError(unknown, installed.map((plugin) => plugin.id).sort(), '--config');
  const plugins: LabPlugin[] = wanted.map((plugin) => ({
    id: plugin.id,
    directory: plugin.directory,
    configSchema: runtime.getPlugin(plugin.id)?.configSchema,
  }));
  const allPlugins: LabPlugin[] = installed.map((plugin) => ({ id: plugin.id, directory: plugin.directory }));
  const examples = options.strategy?.length ? [] : installed.filter(isExamplePlugin).map((plugin) => plugin.id);
  if (examples.length > 0)
    output.err(
      wrapToColumns(`Example plugins left out: ${examples.join(', ')} (name one with --strategy to compare it).`) +
        '\n',
    );
  const sweep = options.sweep === true || options.grid !== undefined;
  const grid = sweep ? readSweepGrid(options.grid) : {};
  const configurations = new Map<string, SweepConfiguration[]>(
    plugins.map((plugin) => [
      plugin.id,
      sweep
        ? sweepConfigurations(plugin.id, grid, plugin.configSchema)
        : [{ values: {}, config: {}, label: plugin.id }],
    ]),
  );
  const notes: Record<string, string> = {};
  for (const plugin of wanted) {
    const override = overrides[plugin.id];
    const about = `${plugin.name} v${plugin.version}${plugin.description ? `: ${plugin.description}` : ''}`;
    for (const configuration of configurations.get(plugin.id)!) {
      const keys = mergeConfig(override ?? {}, configuration.config);
      notes[configuration.label] =
        `${about}${Object.keys(keys).length ? ` Run with ${JSON.stringify(keys)} over the lab's config.` : ''}`;
    }
  }
  const runs = plugins.reduce((total, plugin) => total + configurations.get(plugin.id)!.length, 0);

  const datasets = [];
  let totalCalls = 0;
  for (const file of files) {
    const records = await readTranscript(file, {
      limit: options.limit,
      format: options.format,
      onSkip: printSkipped(output),
    });
    const window = options.window ?? presetWindow(datasetFamily(file)) ?? autoWindow(records, counter);
    const calls = records.reduce(
      (sum, record) => sum + replayPoints(record.messages).filter((point) => point.kind === 'compose').length,
      0,
    );
    totalCalls += calls * runs;
    datasets.push({ file, records, window });
  }
  const bar =
    options.progress !== false && output.interactive
      ? new SingleBar({
          format: 'replaying {bar} {percentage}% · {strategy}',
          barsize: 20,
          hideCursor: true,
          stream: process.stderr,
        })
      : undefined;
  bar?.start(totalCalls, 0, { strategy: '' });

  const summaries: StrategySummary[] = [];
  let run = 0;
  try {
    for (const { file, records, window } of datasets) {
      for (const plugin of plugins)
        for (const configuration of configurations.get(plugin.id)!) {
          run += 1;
          const config = mergeConfig(
            { ...labConfig(plugin, datasetFamily(file), window, allPlugins), ...overrides[plugin.id] },
            configuration.config,
          );
          // A store of its own per run: configurations of one strategy replay the same sessions and
          // would otherwise read each other's summaries, state and recall index.
          const agent = await runtime.loadAgent(
            {
              id: `lab-${plugin.id}`.slice(0, 64),
              contextStrategy: { type: 'plugin', pluginId: plugin.id, config },
              ...(options.pinFirstUser ? { pins: [{ message: 'first-user', label: 'task' }] } : {}),
            },
            { store: new MemoryContextStore() },
          );
          const observations: CallObservation[] = [];
          const epochs: ReductionEpoch[] = [];
          agent.events.on('epoch-recorded', (event) => epochs.push(event.epoch));
          try {
            for (const record of records) {
              const manager = agent.forSession(sessionIdFor(record.id));
              const observed = await replayConversation({
                manager,
                record,
                counter,
                window,
                checkPins: options.pinFirstUser === true,
                onCall: () => bar?.increment(1, { strategy: `${datasetName(file)} · ${configuration.label}` }),
              });
              observations.push(...observed);
            }
          } finally {
            await agent.dispose();
          }
          const summary = summarizeObservations(
            plugin.id,
            configuration.label,
            datasetName(file),
            window,
            records.length,
            observations,
            price,
            epochs,
          );
          summaries.push(summary);
          if (!bar) {
            const counter = sweep ? `[${run}/${runs * datasets.length}] ` : '';
            output.err(
              `  ${counter}${datasetName(file)} · ${configuration.label}: ${summary.calls} ` +
                `calls${summary.rejectedCalls ? ` (${summary.rejectedCalls} rejected)` : ''}\n`,
            );
          }
        }
    }
  } finally {
    bar?.stop();
  }
  return {
    summaries,
    llmDescription: lab.description,
    counterDescription: `${meta.backend} ${meta.encoding ?? 'heuristic'} (${meta.strategy})`,
    notes,
  };
}

/**
 * `ctxkit compare`: prints the table and why calls were rejected; writes the HTML report and JSON
 * when asked. Exit 1 when a payload was invalid or over budget, or when a strategy rejected a call
 * (unless `allowRejections`); 0 otherwise.
 */
export async function compareCommand(options: CompareOptions, output: CliOutput): Promise<number> {
  const result = await runComparison(options, output);
  output.out(
    `${wrapToColumns(
      `Summaries and extraction: ${result.llmDescription}.\nToken ` + `counts: ${result.counterDescription}.`,
    )}\n`,
  );
  output.out(`${renderComparisonTable(result.summaries, { color: output.color, wide: options.wide === true })}\n`);
  const rejected = renderRejectedCalls(result.summaries);
  output.out(options.wide || rejected === '' ? rejected : `${wrapToColumns(rejected.trimEnd())}\n`);
  if (options.report) {
    fs.mkdirSync(path.dirname(path.resolve(options.report)), { recursive: true });
    fs.writeFileSync(
      options.report,
      renderHtmlReport(result.summaries, {
        title: 'ctxkit strategy comparison',
        llmDescription: result.llmDescription,
        counterDescription: result.counterDescription,
        strategyNotes: result.notes,
        generatedAt: new Date().toISOString(),
      }),
    );
    output.out(`Report written to ${options.report}\n`);
  }
  if (options.json) {
    fs.mkdirSync(path.dirname(path.resolve(options.json)), { recursive: true });
    fs.writeFileSync(options.json, JSON.stringify(result, null, 2));
    output.out(`Results written to ${options.json}\n`);
  }
  const broken = result.summaries.filter((s) => s.invalidPayloads > 0 || s.overBudgetPayloads > 0);
  for (const row of broken)
    output.err(
      `${wrapToColumns(
        `${row.label} on ${row.dataset}: ${row.invalidPayloads} invalid ` +
          `and ${row.overBudgetPayloads} over-budget payloads`,
      )}\n`,
    );
  const rejecting = result.summaries.filter((s) => s.rejectedCalls > 0);
  if (rejecting.length > 0 && !options.allowRejections) {
    const calls = rejecting.reduce((total, row) => total + row.rejectedCalls, 0);
    output.err(
      `${wrapToColumns(
        `${calls} call(s) rejected by ${[...new Set(rejecting.map((row) => row.label))].join(', ')} ` +
          `(reasons above): exit 1. Pass --allow-rejections to exit 0 on rejections.`,
      )}\n`,
    );
  }
  return broken.length > 0 || (rejecting.length > 0 && !options.allowRejections) ? 1 : 0;
}
