import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  type StrategyFactory,
  type ToolDefinition,
} from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';
import { generateCodingHistory } from '@ctxkit/core/testing/generators';
import { createStrategy as createSummarization } from '@ctxkit/strategy-dynamic-summarization';
import { createStrategy as createEntityExtraction } from '@ctxkit/strategy-entity-extraction';
import { createStrategy as createRecall } from '@ctxkit/strategy-recall';
import { createStrategy as createSlidingWindow } from '@ctxkit/strategy-sliding-window';
import { createStrategy as createToolOutputCache } from '@ctxkit/strategy-tool-output-cache';

/** One conversation the golden run replays: its system prompt, tools and full history. */
export interface GoldenConversation {
  name: string;
  systemPrompt: string;
  tools: ToolDefinition[];
  history: ChatMessage[];
  /** Which state schema entity extraction gets for it. */
  kind: 'airline' | 'coding';
}

/** One strategy configuration the golden run replays every conversation under. */
export interface GoldenStrategy {
  name: string;
  pluginId: string;
  config: Record<string, unknown>;
  /** Pins the task (the first user message) and a rule through the session layer before the first call. */
  pins?: boolean;
  /** Entity extraction: the state schema follows the conversation. */
  schema?: boolean;
  /**
   * A scripted model writes compaction summaries, and each compose is followed by the checkpoint after a model call,
   * with the payload's tokens as the usage, so that automatic compaction runs.
   */
  compacts?: boolean;
}

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const readJson = (...parts: string[]) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, ...parts), 'utf8')) as Record<string, unknown>;
const AIRLINE_SCHEMA = readJson('plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json');
const CODING_SCHEMA = readJson('packages', 'cli', 'presets', 'coding-task.schema.json');

/** The cache-related configuration: a cut keeps 40 % of the room, 60 % of it for the conversation's first messages. */
const CUT_BACK = { cutBackRatio: 0.4, keepFirstShare: 0.6 };

/** Every standard strategy in its default configuration and its cache-related ones (offline: no model). */
export function goldenStrategies(): GoldenStrategy[] {
  return [
    { name: 'sliding-window', pluginId: 'std-sliding-window-strategy', config: {} },
    { name: 'sliding-window-cut-back', pluginId: 'std-sliding-window-strategy', config: CUT_BACK },
    { name: 'sliding-window-cut-back-pins', pluginId: 'std-sliding-window-strategy', config: CUT_BACK, pins: true },
    { name: 'summarization', pluginId: 'std-summarization-strategy', config: {} },
    { name: 'summarization-cut-back', pluginId: 'std-summarization-strategy', config: { cutBackRatio: 0.4 } },
    { name: 'summarization-pins', pluginId: 'std-summarization-strategy', config: {}, pins: true },
    { name: 'entity-extraction', pluginId: 'std-entity-extraction-strategy', config: {}, schema: true },
    { name: 'entity-extraction-cut-back', pluginId: 'std-entity-extraction-strategy', config: CUT_BACK, schema: true },
    { name: 'tool-output-cache', pluginId: 'std-tool-output-cache-strategy', config: {} },
    { name: 'tool-output-cache-cut-back', pluginId: 'std-tool-output-cache-strategy', config: CUT_BACK },
    {
      name: 'tool-output-cache-cut-back-pins',
      pluginId: 'std-tool-output-cache-strategy',
      config: CUT_BACK,
      pins: true,
    },
    {
      name: 'tool-output-cache-compaction',
      pluginId: 'std-tool-output-cache-strategy',
      config: { ...CUT_BACK, minReclaimTokens: 300, microCompact: { when: 'always', keepRecent: 2 } },
      compacts: true,
    },
    { name: 'recall', pluginId: 'std-recall-strategy', config: {} },
  ];
}

/** The state schema entity extraction gets for a conversation of `kind`. */
export function stateSchemaFor(kind: GoldenConversation['kind']): Record<string, unknown> {
  return kind === 'airline' ? AIRLINE_SCHEMA : CODING_SCHEMA;
}

/**
 * The conversations: tau-bench airline records and OpenHands runs (bundled replays), and the bench's
 * coding history at small sizes. The quick set is a subset of the full one (one fixture serves both).
 */
export function goldenConversations(full: boolean): GoldenConversation[] {
  const tau = loadConversations('tau-bench-airline').filter((_, index) => index % (full ? 10 : 100) === 0);
  const openhands = loadConversations('openhands-multi-swe-bench').slice(0, full ? undefined : 1);
  const conversations: GoldenConversation[] = [
    ...tau.map((record) => ({
      name: `tau-bench-airline/${record.id}`,
      systemPrompt: record.systemPrompt,
      tools: (record.tools ?? []) as ToolDefinition[],
      history: record.history,
      kind: 'airline' as const,
    })),
    ...openhands.map((record) => ({
      name: `openhands/${record.id}`,
      systemPrompt: record.systemPrompt,
      tools: (record.tools ?? []) as ToolDefinition[],
      history: record.history,
      kind: 'coding' as const,
    })),
  ];
  for (const size of full ? [60, 400] : [60]) {
    conversations.push({
      name: `bench-coding-${size}`,
      systemPrompt: 'You are a careful coding agent. Use the tools to read files and run commands; keep answers short.',
      tools: [],
      history: generateCodingHistory(size, 42 + size),
      kind: 'coding',
    });
  }
  return conversations;
}

/** Budgets every conversation is replayed at: small enough that every strategy cuts, and one that cuts late. */
export function goldenCeilings(full: boolean): number[] {
  return full ? [2000, 4000, 8000, 16000] : [4000, 8000];
}

/** The run's clock (`context.now`): one second further per reading, back at its start for each replay. */
export const goldenClock = {
  start: Date.UTC(2025, 0, 1),
  time: Date.UTC(2025, 0, 1),
  reset(): void {
    this.time = this.start;
  },
};

/**
 * A runtime whose standard strategies are this checkout's sources (not the built `dist/`), each
 * registered under its own id with its `plugin.json` config schema (so its defaults apply as when
 * loaded), on {@link goldenClock}.
 */
export async function goldenRuntime(): Promise<ContextRuntime> {
  const runtime = await createContextRuntime({ discoverInstalled: false, now: () => (goldenClock.time += 1000) });
  const plugins: Array<[string, StrategyFactory<any>]> = [
    ['sliding-window', createSlidingWindow],
    ['dynamic-summarization', createSummarization],
    ['entity-extraction', createEntityExtraction],
    ['tool-output-cache', createToolOutputCache],
    ['recall', createRecall],
  ];
  for (const [folder, factory] of plugins) {
    const manifest = readJson('plugins', folder, 'plugin.json') as {
      id: string;
      configSchema: Record<string, unknown>;
    };
    runtime.registerStrategy({ id: manifest.id, configSchema: manifest.configSchema }, factory);
  }
  return runtime;
}
