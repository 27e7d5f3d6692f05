/**
 * What a turn costs each standard strategy: the sliding window, summarization, entity extraction
 * and the tool-output cache compose the same coding histories (100, 1,000 and 10,000 messages) at
 * 8K and 128K, each turn the same history plus one new user message (a new array), warm; and the
 * first call at 10,000 messages (a new strategy with a new counter: nothing of the history seen).
 * No model is configured: summarization uses its offline extractive summarizer and entity
 * extraction its offline schema extractor, as `npm start` does without an endpoint. Only
 * `composePayload` is timed; a strategy's background work (a summary fold) is awaited between turns,
 * outside the timing. `npm run bench` adds these rows to its report.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage, ContextManager, TokenCounter } from '@ctxkit/core';
import { createConformanceContext } from '@ctxkit/core/testing';
import { createSummarizationStrategy } from '@ctxkit/strategy-dynamic-summarization';
import { createEntityExtractionStrategy } from '@ctxkit/strategy-entity-extraction';
import { createSlidingWindowStrategy } from '@ctxkit/strategy-sliding-window';
import { ToolOutputCacheStrategy } from '@ctxkit/strategy-tool-output-cache';
import { generateHistory } from './generate-history';

/** A strategy under measurement: its label and how to build it for one conversation. */
interface BenchedStrategy {
  label: string;
  strategyId: string;
  create(maxContextTokens: number, counter: TokenCounter): ContextManager;
}

/** One strategy at one history size and budget. */
export interface StrategyTurnEntry {
  strategy: string;
  messages: number;
  maxContextTokens: number;
  /** Median wall time of `composePayload` per turn, in ms. */
  perTurnMs: number;
  /** Median CPU time of this process per turn, in ms (what a busy machine does not inflate). */
  perTurnCpuMs: number;
  turns: number;
  /** Median wall time of the first call (10,000 messages only), in ms. */
  firstMs?: number;
  firstSamples?: number;
  /** Messages in the last payload (system prompt and memory included). */
  payloadMessages: number;
}

/** What {@link benchStrategyTurns} works with. */
export interface StrategyTurnBenchOptions {
  quick: boolean;
  /** A counter with empty caches (each conversation gets its own). */
  freshCounter(): TokenCounter;
  /** Where the entries go (`strategyTurns`). */
  results: Record<string, unknown>;
}

/** The report's table: its head (history, measure, one column per strategy) and rows. */
export interface StrategyTurnTable {
  head: string[];
  rows: string[][];
}

const SYSTEM = 'You are a careful coding agent. Use the tools to read files and run commands; keep answers short.';

/** The state schema `npm start` gives entity extraction on coding runs (the lab's coding-task preset). */
function codingTaskSchema(): Record<string, unknown> {
  const file = path.join(__dirname, '..', '..', 'packages', 'cli', 'presets', 'coding-task.schema.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function strategies(): BenchedStrategy[] {
  const stateSchema = codingTaskSchema();
  const contextFor = (strategyId: string, counter: TokenCounter) => createConformanceContext('bench', { counter, counterFor: () => counter, strategyId }, undefined).context;
  const budget = (maxContextTokens: number) => ({ model: 'gpt-4o', maxContextTokens });
  return [
    { label: 'sliding window', strategyId: 'std-sliding-window-strategy', create: (max, counter) => createSlidingWindowStrategy(budget(max), contextFor('std-sliding-window-strategy', counter)) },
    { label: 'summarization (offline)', strategyId: 'std-summarization-strategy', create: (max, counter) => createSummarizationStrategy(budget(max), contextFor('std-summarization-strategy', counter)) },
    {
      label: 'entity extraction (offline)',
      strategyId: 'std-entity-extraction-strategy',
      create: (max, counter) => createEntityExtractionStrategy({ ...budget(max), stateSchema, recentTurns: 2 }, contextFor('std-entity-extraction-strategy', counter)),
    },
    { label: 'tool-output cache', strategyId: 'std-tool-output-cache-strategy', create: (max, counter) => new ToolOutputCacheStrategy(budget(max), contextFor('std-tool-output-cache-strategy', counter)) },
  ];
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function wallMs(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

function newUser(turn: number): ChatMessage {
  return { role: 'user', content: `Turn ${turn}: what changed since the last build? 次の手順を教えてください。` };
}

async function idle(manager: ContextManager): Promise<void> {
  const waitable = manager as ContextManager & { whenIdle?: () => Promise<void> };
  if (typeof waitable.whenIdle === 'function') await waitable.whenIdle();
}

/** The first call on `history`: a new strategy and counter each sample, the median of the samples. */
async function firstCall(strategy: BenchedStrategy, history: ChatMessage[], maxContextTokens: number, options: StrategyTurnBenchOptions, samples: number): Promise<number> {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const manager = strategy.create(maxContextTokens, options.freshCounter());
    const start = process.hrtime.bigint();
    await manager.composePayload(SYSTEM, history, []);
    times.push(wallMs(start));
    await idle(manager);
  }
  return median(times);
}

/**
 * Measures every standard strategy's per-turn cost at 100, 1,000 and 10,000 messages (8K and 128K),
 * and its first call at 10,000, and adds the rows to the report.
 */
export async function benchStrategyTurns(options: StrategyTurnBenchOptions): Promise<StrategyTurnTable> {
  const benched = strategies();
  const table: StrategyTurnTable = { head: ['history', 'measure', ...benched.map((strategy) => strategy.label)], rows: [] };
  const entries: StrategyTurnEntry[] = [];
  const turns = options.quick ? 5 : 20;
  for (const size of [100, 1000, 10_000]) {
    const history = generateHistory(size, 42 + size);
    for (const maxContextTokens of [8192, 131072]) {
      const label = `${size.toLocaleString('en-US')} msgs, ${Math.round(maxContextTokens / 1024)}K`;
      const perTurn: string[] = [label, 'per turn (+1 msg)'];
      const first: string[] = [label, 'first call'];
      for (const strategy of benched) {
        // Warm up the code paths (JIT, tokenizer tables) on a small history first.
        const warm = strategy.create(maxContextTokens, options.freshCounter());
        await warm.composePayload(SYSTEM, generateHistory(50, 7), []);
        await idle(warm);
        const entry: StrategyTurnEntry = { strategy: strategy.label, messages: size, maxContextTokens, perTurnMs: 0, perTurnCpuMs: 0, turns, payloadMessages: 0 };
        if (size === 10_000) {
          entry.firstSamples = options.quick ? 1 : 3;
          entry.firstMs = await firstCall(strategy, history, maxContextTokens, options, entry.firstSamples);
        }
        const manager = strategy.create(maxContextTokens, options.freshCounter());
        await manager.composePayload(SYSTEM, history, []);
        await idle(manager);
        let current = history;
        const wall: number[] = [];
        const cpu: number[] = [];
        for (let turn = 0; turn < turns; turn++) {
          current = [...current, newUser(turn)];
          const startCpu = cpuMs();
          const start = process.hrtime.bigint();
          const payload = await manager.composePayload(SYSTEM, current, []);
          wall.push(wallMs(start));
          cpu.push(cpuMs() - startCpu);
          entry.payloadMessages = payload.messages.length;
          await idle(manager);
        }
        entry.perTurnMs = median(wall);
        entry.perTurnCpuMs = median(cpu);
        entries.push(entry);
        perTurn.push(formatMs(entry.perTurnMs));
        first.push(entry.firstMs === undefined ? '' : formatMs(entry.firstMs));
        process.stdout.write(`  ${strategy.label}, ${label}: per turn ${formatMs(entry.perTurnMs)} (CPU ${formatMs(entry.perTurnCpuMs)})${entry.firstMs === undefined ? '' : `, first call ${formatMs(entry.firstMs)}`}, ${entry.payloadMessages} messages sent\n`);
      }
      table.rows.push(perTurn);
      if (size === 10_000) table.rows.push(first);
    }
  }
  options.results.strategyTurns = entries;
  return table;
}

function formatMs(value: number): string {
  if (value < 0.01) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 10) return `${value.toFixed(3)} ms`;
  if (value < 10_000) return `${value.toFixed(1)} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}
