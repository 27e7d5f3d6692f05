import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type AgentHandle,
  createContextRuntime,
  createTokenCounter,
  CtxkitError,
  ErrorCodes,
  MemoryContextStore,
  PluginNotFoundError,
} from '@ctxkit/core';

import type { CallObservation } from '../lab/call-observation';
import { readTranscript } from '../lab/read-transcript';
import { replayConversation, replaySchedule } from '../lab/replay-conversation';
import { OFFLINE_DESCRIPTION } from '../lab/resolve-llm';
import { sessionIdFor } from '../lab/session-id';
import { mergeConfig } from '../lab/sweep-grid';
import type { TranscriptRecord } from '../lab/transcript-record';
import type { QualityDataset } from './quality-dataset';
import { BASELINE_LABEL, ENTITY_EXTRACTION_ID, qualityDatasets } from './quality-datasets';
import { notMeasuredRow, type QualityRow, qualityRow } from './quality-row';
import { withSlidingWindowRatios } from './sliding-window-ratios';
import type { StrategyVariant } from './strategy-variant';

/** The entity-extraction state schema of the airline conversations, inside that plugin's directory. */
const AIRLINE_SCHEMA = path.join('schemas', 'airline-booking.schema.json');

/** What {@link runQuality} measures: datasets, ceilings, strategies. */
export interface QualityOptions {
  /** Only these data sets (`tau-bench`, `locomo`, `openhands`). */
  dataset?: string[];
  /** Only these ceilings (each data set keeps those of its own it has; any other given ceiling is measured too). */
  ceiling?: number[];
  /** Only these variants: a row label (`summarization`), a plugin id, or a plugin id prefix. */
  strategy?: string[];
  /** At most this many conversations per data set. */
  limit?: number;
  /** Strategy plugin directories to discover, beside the installed ones. */
  pluginDir?: string[];
  /**
   * Config keys per plugin id, over each of its variants' (`--config <id>=<json>`): a strategy's facts in another
   * configuration.
   */
  config?: Record<string, Record<string, unknown>>;
  /** Progress: the number of payloads composed in all, then one call per payload. */
  onStart?(totalCalls: number): void;
  onCall?(label: string): void;
  onRow?(row: QualityRow): void;
}

/** The quality table's rows and how they were measured. */
export interface QualityResult {
  rows: QualityRow[];
  /** Data sets that were not measured, and why. */
  skipped: Array<{ dataset: string; reason: string }>;
  notes: string[];
  llmDescription: string;
  counterDescription: string;
}

/**
 * The context-quality harness: replays each data set's conversations through each strategy
 * variant at each ceiling, the way a new user would (`createContextRuntime()` → `loadAgent` →
 * `forSession`, no LLM configured so the offline summarizer and extractor run), one payload per
 * replayed point, `onTurnComplete` after each answered turn with its background work awaited.
 * Each fact is checked in the payload composed when it is needed.
 */
export async function runQuality(options: QualityOptions = {}): Promise<QualityResult> {
  const runtime = await createContextRuntime({ pluginDirs: options.pluginDir });
  const counter = createTokenCounter({ model: 'gpt-4o' });
  const meta = counter.meta();
  const installed = runtime.listPlugins();
  const entityPlugin = installed.find((plugin) => plugin.id === ENTITY_EXTRACTION_ID);
  const airlineSchema = entityPlugin?.directory
    ? (JSON.parse(fs.readFileSync(path.join(entityPlugin.directory, AIRLINE_SCHEMA), 'utf8')) as Record<
        string,
        unknown
      >)
    : {};
  const all = qualityDatasets(airlineSchema);
  const known = [...new Set(all.flatMap((dataset) => dataset.variants.flatMap((v) => [v.label, v.pluginId])))];
  const unknown = options.strategy?.find((name) => !known.some((id) => id === name || id.startsWith(name)));
  if (unknown) throw new PluginNotFoundError(unknown, known, '--strategy');
  const wanted = all.filter((dataset) => !options.dataset?.length || options.dataset.includes(dataset.name));
  const overrides = options.config ?? {};
  const unknownId = Object.keys(overrides).find((id) => !installed.some((plugin) => plugin.id === id));
  if (unknownId !== undefined)
    throw new PluginNotFoundError(unknownId, installed.map((plugin) => plugin.id).sort(), '--config');

  const skipped: QualityResult['skipped'] = [];
  const notes: string[] = [];
  const plan: Array<{
    dataset: QualityDataset;
    records: TranscriptRecord[];
    ceilings: number[];
    variants: StrategyVariant[];
  }> = [];
  let totalCalls = 0;
  for (const dataset of wanted) {
    if (!dataset.file) {
      skipped.push({ dataset: dataset.name, reason: dataset.skipped ?? 'not available' });
      continue;
    }
    const ceilings = options.ceiling?.length ? options.ceiling : dataset.ceilings;
    const variants = dataset.variants.filter(
      (v) =>
        !options.strategy?.length || options.strategy.some((name) => v.label === name || v.pluginId.startsWith(name)),
    );
    if (variants.length === 0) continue;
    const records = await readTranscript(dataset.file, { limit: options.limit });
    const calls = records.reduce(
      (sum, record) =>
        sum + replaySchedule(record, dataset.finalCompose).filter((point) => point.kind === 'compose').length,
      0,
    );
    totalCalls += calls * ceilings.length * variants.length;
    notes.push(...dataset.notes);
    plan.push({ dataset, records, ceilings, variants });
  }
  options.onStart?.(totalCalls);

  const rows: QualityRow[] = [];
  for (const { dataset, records, ceilings, variants } of plan) {
    for (const ceiling of ceilings) {
      for (const strategy of variants) {
        const key = {
          dataset: dataset.name,
          ceiling,
          strategy: strategy.label,
          pluginId: strategy.pluginId,
          conversations: records.length,
        };
        const label = `${dataset.name} · ${ceiling} · ${strategy.label}`;
        let agent: AgentHandle;
        try {
          // A store of its own per variant: two variants of one plugin (with and without recall, lean or not)
          // would otherwise read each other's state, kept under the same agent and session ids.
          agent = await runtime.loadAgent(
            {
              id: `quality-${strategy.pluginId}`.slice(0, 64),
              contextStrategy: {
                type: 'plugin',
                pluginId: strategy.pluginId,
                config: mergeConfig(strategy.config(ceiling), overrides[strategy.pluginId] ?? {}),
              },
            },
            { store: new MemoryContextStore() },
          );
        } catch (error) {
          if (!CtxkitError.isInstance(error)) throw error;
          const reason =
            error.code === ErrorCodes.CONFIG_INVALID ? 'n/a (config not yet supported)' : `n/a (${error.code})`;
          const row = notMeasuredRow(key, reason, error.message);
          rows.push(row);
          options.onRow?.(row);
          const skippedCalls = records.reduce(
            (sum, record) =>
              sum + replaySchedule(record, dataset.finalCompose).filter((point) => point.kind === 'compose').length,
            0,
          );
          for (let call = 0; call < skippedCalls; call++) options.onCall?.(label);
          continue;
        }
        const observations: CallObservation[] = [];
        const started = performance.now();
        try {
          for (const record of records) {
            const observed = await replayConversation({
              manager: agent.forSession(sessionIdFor(record.id)),
              record,
              counter,
              window: ceiling,
              reserveOutputTokens: 0,
              finalCompose: dataset.finalCompose,
              onCall: () => options.onCall?.(label),
            });
            observations.push(...observed);
          }
        } finally {
          await agent.dispose();
        }
        const row = qualityRow(key, observations, Math.round((performance.now() - started) / 100) / 10);
        rows.push(row);
        options.onRow?.(row);
      }
    }
  }
  return {
    rows: withSlidingWindowRatios(rows, BASELINE_LABEL),
    skipped,
    notes: [...new Set(notes)],
    llmDescription: OFFLINE_DESCRIPTION,
    counterDescription: `${meta.backend} ${meta.encoding ?? 'heuristic'} (${meta.strategy})`,
  };
}
