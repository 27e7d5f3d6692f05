/**
 * What a turn costs each standard strategy: the sliding window, summarization, entity extraction
 * and the tool-output cache compose the same coding histories (100, 1,000 and 10,000 messages) at
 * 8K and 128K, each turn the same history plus one new user message (a new array), warm (after 30
 * turns on another 1,000-message history), in three rounds of 20 turns (a new strategy per history
 * each round, the histories' turns alternating; the median over all 60 turns; garbage of a round's
 * untimed first compose collected before its turns);
 * and the first call at 10,000 messages (a new strategy with a new counter: nothing of the history
 * seen; the median of 5).
 * No model is configured: summarization uses its offline extractive summarizer and entity
 * extraction its offline schema extractor, as `npm start` does without an endpoint. Only
 * `composePayload` is timed; a strategy's background work (a summary fold) is awaited between turns,
 * outside the timing.
 *
 * `node bench/dist/strategy-turn-bench.js [--quick] [--only=<label part>] [--sizes=100,10000]` measures
 * in its own process (a heap holding one conversation, as an agent host's does, not the whole
 * benchmark's) and prints the entries as JSON; `--only` keeps the strategies whose label contains the
 * text and `--sizes` the history sizes listed. `npm run bench` runs every row so and adds them to its report.
 */
import 'reflect-metadata';

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { type ChatMessage, type IContextManager, type ITokenCounter } from '@ctxkit/core';
import { type IContextStore, MemoryContextStore } from '@ctxkit/core';
import { BpeTokenCounter, GptTokenizerEncoder, SharedCountCaches } from '@ctxkit/core/strategy-kit';
import { createConformanceContext } from '@ctxkit/core/testing';
import { createStrategy as createSummarization } from '@ctxkit/strategy-dynamic-summarization';
import { createStrategy as createEntityExtraction } from '@ctxkit/strategy-entity-extraction';
import { createStrategy as createRecall } from '@ctxkit/strategy-recall';
import { createStrategy as createSlidingWindow } from '@ctxkit/strategy-sliding-window';
import { createStrategy as createToolOutputCache } from '@ctxkit/strategy-tool-output-cache';

import { collectGarbage } from './collect-garbage';
import { generateHistory } from './generate-history';

/** A strategy under measurement: its label and how to build it for one conversation. */
interface BenchedStrategy {
  label: string;
  strategyId: string;
  /** `store`: the conversation's store, when the measure reopens one (a restart); a new one otherwise. */
  create(maxContextTokens: number, counter: ITokenCounter, store?: IContextStore): IContextManager;
  /** Its first call is timed after a restart: a new instance on a store that already holds its state. */
  firstAfterRestart?: boolean;
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
  /** Turns measured, every round's. */
  turns: number;
  /** Median wall time of the first call (10,000 messages only), in ms. */
  firstMs?: number;
  firstSamples?: number;
  /**
   * Median CPU time of the first call (the process's, all its threads), in ms: what a loaded machine's wall time hides.
   */
  firstCpuMs?: number;
  /** Messages in the last payload (system prompt and memory included). */
  payloadMessages: number;
  /** Recall at 10,000 messages: heap the index takes, and the text it indexes (UTF-8 bytes). */
  indexHeapBytes?: number;
  indexedTextBytes?: number;
}

/** What {@link measureStrategyTurns} works with. */
interface StrategyTurnBenchOptions {
  quick: boolean;
  /** Only the strategies whose label contains this text. @default every strategy */
  only?: string;
  /** Only these history sizes. @default 100, 1,000 and 10,000 */
  sizes?: number[];
  /** A counter with empty caches (each conversation gets its own). */
  freshCounter(): ITokenCounter;
}

/** The report's table: its head (history, measure, one column per strategy) and rows. */
export interface StrategyTurnTable {
  head: string[];
  rows: string[][];
}

const SYSTEM = 'You are a careful coding agent. Use the tools to read files and run commands; keep answers short.';
/** Turns composed on the warm-up history before a strategy is measured. */
const WARM_TURNS = 30;
/**
 * Messages of the warm-up history: enough for the engine to optimize the code a long history runs.
 * On 200 messages, recall's search and ranking did too little work to be optimized, and were first
 * optimized during the measured turns: the first round at 10,000 messages and 8K took 1.2 to 2.5 ms a
 * turn for ten turns, then 0.6 ms.
 */
const WARM_MESSAGES = 1000;

/** The state schema `npm start` gives entity extraction on coding runs (the lab's coding-task preset). */
function codingTaskSchema(): Record<string, unknown> {
  const file = path.join(__dirname, '..', '..', 'packages', 'cli', 'presets', 'coding-task.schema.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function strategies(): BenchedStrategy[] {
  const stateSchema = codingTaskSchema();
  const contextFor = (strategyId: string, counter: ITokenCounter, store?: IContextStore) =>
    createConformanceContext(
      'bench',
      { counter, counterFor: () => counter, strategyId, ...(store ? { store } : {}) },
      undefined,
    ).context;
  const budget = (maxContextTokens: number) => ({ model: 'gpt-4o', maxContextTokens });
  return [
    {
      label: 'sliding window',
      strategyId: 'std-sliding-window-strategy',
      create: (max, counter) => createSlidingWindow(budget(max), contextFor('std-sliding-window-strategy', counter)),
    },
    {
      label: 'summarization (offline)',
      strategyId: 'std-summarization-strategy',
      create: (max, counter) => createSummarization(budget(max), contextFor('std-summarization-strategy', counter)),
    },
    {
      label: 'entity extraction (offline)',
      strategyId: 'std-entity-extraction-strategy',
      create: (max, counter) =>
        createEntityExtraction(
          { ...budget(max), stateSchema, recentTurns: 2 },
          contextFor('std-entity-extraction-strategy', counter),
        ),
    },
    {
      label: 'tool-output cache',
      strategyId: 'std-tool-output-cache-strategy',
      create: (max, counter) =>
        createToolOutputCache(budget(max), contextFor('std-tool-output-cache-strategy', counter)),
    },
    {
      label: 'recall',
      strategyId: 'std-recall-strategy',
      create: (max, counter, store) => createRecall(budget(max), contextFor('std-recall-strategy', counter, store)),
      firstAfterRestart: true,
    },
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

async function idle(manager: IContextManager): Promise<void> {
  const waitable = manager as IContextManager & { whenIdle?: () => Promise<void> };
  if (typeof waitable.whenIdle === 'function') await waitable.whenIdle();
}

/**
 * The first call on `history`: a new strategy and counter each sample, the median of the samples.
 * For a strategy that keeps an index in its store, the first call after a restart: the store already
 * holds what an earlier instance indexed.
 */
async function firstCall(
  strategy: BenchedStrategy,
  history: ChatMessage[],
  maxContextTokens: number,
  options: StrategyTurnBenchOptions,
  samples: number,
): Promise<{ wallMs: number; cpuMs: number }> {
  const times: number[] = [];
  const cpu: number[] = [];
  let store: IContextStore | undefined;
  if (strategy.firstAfterRestart) {
    store = new MemoryContextStore();
    const earlier = strategy.create(maxContextTokens, options.freshCounter(), store);
    await earlier.onTurnComplete(history.slice(0, -1));
    await idle(earlier);
    dispose(earlier);
  }
  for (let sample = 0; sample < samples; sample++) {
    const manager = strategy.create(maxContextTokens, options.freshCounter(), store);
    collectGarbage();
    const startCpu = cpuMs();
    const start = process.hrtime.bigint();
    await manager.composePayload(SYSTEM, history, []);
    times.push(wallMs(start));
    cpu.push(cpuMs() - startCpu);
    await idle(manager);
    dispose(manager);
  }
  return { wallMs: median(times), cpuMs: median(cpu) };
}

/**
 * The JavaScript heap plus the array buffers outside it (typed arrays keep their contents there),
 * after collecting the garbage: twice, a tick apart, since array buffers are freed after the
 * collection that finds them unreachable.
 */
async function heapAndBuffers(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function dispose(manager: IContextManager): void {
  void (manager as IContextManager & { dispose?: () => unknown }).dispose?.();
}

/**
 * Memory the recall index of `history` takes (every entry's record, its terms in the index; heap and
 * array buffers), and the text it indexes: measured around indexing the history into a fresh store,
 * garbage collected on both sides, with the store's own bytes left out.
 */
async function recallIndexMemory(
  strategy: BenchedStrategy,
  history: ChatMessage[],
  options: StrategyTurnBenchOptions,
): Promise<{ heapBytes: number; textBytes: number }> {
  const store = new MemoryContextStore();
  const before = await heapAndBuffers();
  const manager = strategy.create(8192, options.freshCounter(), store);
  await manager.onTurnComplete(history.slice(0, -1));
  await idle(manager);
  const after = await heapAndBuffers();
  let logBytes = 0;
  let textBytes = 0;
  for (const key of await store.listBlobs({ agentId: 'conformance-agent' })) {
    const chunks: Buffer[] = [];
    for await (const chunk of store.readBlob(key)) chunks.push(Buffer.from(chunk));
    const log = Buffer.concat(chunks);
    logBytes += log.byteLength;
    for (const line of log.toString('utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as { type: string; text?: string };
      if (record.type === 'entry') textBytes += Buffer.byteLength(record.text ?? '');
    }
  }
  dispose(manager);
  return { heapBytes: after - before - logBytes, textBytes };
}

/**
 * Measures every standard strategy's per-turn cost at 100, 1,000 and 10,000 messages (8K and 128K), and its first call
 * at 10,000.
 */
async function measureStrategyTurns(options: StrategyTurnBenchOptions): Promise<StrategyTurnEntry[]> {
  const benched = strategies().filter(
    (strategy) => options.only === undefined || strategy.label.includes(options.only),
  );
  const sizes = options.sizes ?? [100, 1000, 10_000];
  const histories = new Map(sizes.map((size) => [size, generateHistory(size, 42 + size)] as const));
  const entries: StrategyTurnEntry[] = [];
  const turns = options.quick ? 5 : 20;
  const rounds = options.quick ? 1 : 3;
  for (const maxContextTokens of [8192, 131072]) {
    for (const strategy of benched) {
      // Warm up the code paths (JIT, tokenizer tables) on another history first, turns included:
      // the measured turns run in an agent host that has been composing for a while.
      const warm = strategy.create(maxContextTokens, options.freshCounter());
      let warmHistory = generateHistory(WARM_MESSAGES, 7);
      for (let turn = 0; turn < WARM_TURNS; turn++) {
        await warm.composePayload(SYSTEM, warmHistory, []);
        await idle(warm);
        warmHistory = [...warmHistory, newUser(turn)];
      }
      const measured = sizes.map((size) => {
        const entry: StrategyTurnEntry = {
          strategy: strategy.label,
          messages: size,
          maxContextTokens,
          perTurnMs: 0,
          perTurnCpuMs: 0,
          turns: turns * rounds,
          payloadMessages: 0,
        };
        return { entry, history: histories.get(size)!, wall: [] as number[], cpu: [] as number[] };
      });
      for (const { entry, history } of measured) {
        if (entry.messages !== 10_000) continue;
        entry.firstSamples = options.quick ? 1 : 5;
        const first = await firstCall(strategy, history, maxContextTokens, options, entry.firstSamples);
        entry.firstMs = first.wallMs;
        entry.firstCpuMs = first.cpuMs;
        if (strategy.firstAfterRestart && maxContextTokens === 8192) {
          // Measured twice, the second kept: the first build also holds what the process allocates once
          // (the engine's code for sizes first seen, caches every conversation shares): about 1 MB here.
          await recallIndexMemory(strategy, history, options);
          const memory = await recallIndexMemory(strategy, history, options);
          entry.indexHeapBytes = memory.heapBytes;
          entry.indexedTextBytes = memory.textBytes;
        }
      }
      // Each round a new strategy per history composes it once; then the turns of the histories
      // alternate, so that every size is measured under the same load (the bound on growth is a
      // ratio between sizes). The median over every round's turns.
      for (let round = 0; round < rounds; round++) {
        const conversations = [];
        for (const item of measured) {
          const manager = strategy.create(maxContextTokens, options.freshCounter());
          await manager.composePayload(SYSTEM, item.history, []);
          await idle(manager);
          conversations.push({ item, manager, current: item.history });
        }
        collectGarbage();
        for (let turn = 0; turn < turns; turn++) {
          for (const conversation of conversations) {
            conversation.current = [...conversation.current, newUser(turn)];
            const startCpu = cpuMs();
            const start = process.hrtime.bigint();
            const payload = await conversation.manager.composePayload(SYSTEM, conversation.current, []);
            conversation.item.wall.push(wallMs(start));
            conversation.item.cpu.push(cpuMs() - startCpu);
            conversation.item.entry.payloadMessages = payload.messages.length;
            await idle(conversation.manager);
          }
        }
      }
      for (const { entry, wall, cpu } of measured) {
        entry.perTurnMs = median(wall);
        entry.perTurnCpuMs = median(cpu);
        entries.push(entry);
        const label = `${entry.messages.toLocaleString('en-US')} msgs, ${Math.round(maxContextTokens / 1024)}K`;
        process.stderr.write(
          `  ${strategy.label}, ${label}: per turn ${formatMs(entry.perTurnMs)} ` +
            `(CPU ${formatMs(entry.perTurnCpuMs)})` +
            `${
              entry.firstMs === undefined
                ? ''
                : `, first call ${formatMs(entry.firstMs)} ` + `(CPU ${formatMs(entry.firstCpuMs!)})`
            }, ${entry.payloadMessages} messages sent\n`,
        );
      }
    }
  }
  return entries;
}

/**
 * Runs the measurement in its own process and returns the report's table (one column per
 * strategy; a failed run is one row saying so); the entries go to `results.strategyTurns`.
 */
export function benchStrategyTurns(options: { quick: boolean; results: Record<string, unknown> }): StrategyTurnTable {
  const child = spawnSync(process.execPath, [__filename, ...(options.quick ? ['--quick'] : [])], {
    encoding: 'utf8',
    timeout: 1_800_000,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0)
    return {
      head: ['history', 'measure', 'every standard strategy'],
      rows: [['—', 'per turn', `failed (exit ${String(child.status)})`]],
    };
  const entries = JSON.parse(child.stdout.trim()) as StrategyTurnEntry[];
  options.results.strategyTurns = entries;
  // The strategies in the order they were measured.
  const labels = [...new Set(entries.map((entry) => entry.strategy))];
  const table: StrategyTurnTable = { head: ['history', 'measure', ...labels], rows: [] };
  const at = (size: number, max: number) =>
    labels.map((label) =>
      entries.find((entry) => entry.strategy === label && entry.messages === size && entry.maxContextTokens === max),
    );
  for (const size of [100, 1000, 10_000]) {
    for (const max of [8192, 131072]) {
      const label = `${size.toLocaleString('en-US')} msgs, ${Math.round(max / 1024)}K`;
      const cells = at(size, max);
      table.rows.push([
        label,
        'per turn (+1 msg)',
        ...cells.map((entry) => (entry ? formatMs(entry.perTurnMs) : 'n/a')),
      ]);
      if (size === 10_000)
        table.rows.push([
          label,
          'first call',
          ...cells.map((entry) => (entry?.firstMs === undefined ? 'n/a' : formatMs(entry.firstMs))),
        ]);
      if (size === 10_000 && cells.some((entry) => entry?.indexHeapBytes !== undefined)) {
        const memory = (entry: StrategyTurnEntry | undefined) =>
          entry?.indexHeapBytes === undefined
            ? ''
            : `index ${(entry.indexHeapBytes / 1e6).toFixed(1)} ` +
              `MB, ${(entry.indexHeapBytes / entry.indexedTextBytes!).toFixed(2)}× ` +
              `its ${(entry.indexedTextBytes! / 1e6).toFixed(1)} MB of text`;
        table.rows.push([label, 'memory', ...cells.map(memory)]);
      }
    }
  }
  return table;
}

function formatMs(value: number): string {
  if (value < 0.01) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 10) return `${value.toFixed(3)} ms`;
  if (value < 10_000) return `${value.toFixed(1)} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}

if (require.main === module) {
  const freshCounter = () =>
    new BpeTokenCounter(new GptTokenizerEncoder('o200k_base'), new SharedCountCaches(), 'gpt-4o', {
      encoding: 'o200k_base',
      approximate: false,
    });
  const option = (name: string) =>
    process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);
  const sizes = option('sizes')?.split(',').map(Number);
  const only = option('only');
  measureStrategyTurns({
    quick: process.argv.includes('--quick'),
    freshCounter,
    ...(only ? { only } : {}),
    ...(sizes ? { sizes } : {}),
  })
    .then((entries) => process.stdout.write(`${JSON.stringify(entries)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
}
