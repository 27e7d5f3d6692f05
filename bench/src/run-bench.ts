/**
 * `npm run bench`: the sliding window's composePayload against LangChain.js `trimMessages` on the
 * same histories, the same encoding (o200k_base) and the same budget, then the per-turn cost of every
 * standard strategy. Prints the tables and writes `bench/results/latest.json`. Timings are medians
 * in milliseconds.
 */
import 'reflect-metadata';

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { type ChatMessage, type ITokenCounter } from '@ctxkit/core';
import {
  BpeTokenCounter,
  findPayloadProblems,
  GptTokenizerEncoder,
  JsTiktokenEncoder,
  SharedCountCaches,
} from '@ctxkit/core/strategy-kit';
import { createConformanceContext, loadConversations } from '@ctxkit/core/testing';
import { seededRandom } from '@ctxkit/core/testing/generators';
import { createStrategy as createSlidingWindow, type SlidingWindowStrategy } from '@ctxkit/strategy-sliding-window';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';

import { collectGarbage } from './collect-garbage';
import { generateHistory } from './generate-history';
import { benchKernelOverhead } from './kernel-overhead-bench';
import { convert, langchainTrim, memoizedCounter, plainCounter, toLangChain } from './langchain-baseline';
import { benchStrategyTurns, type StrategyTurnTable } from './strategy-turn-bench';

const SYSTEM = 'You are a careful coding agent. Use the tools to read files and run commands; keep answers short.';
const quick = process.argv.includes('--quick');
const results: Record<string, unknown> = {
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  date: new Date().toISOString(),
  encoding: 'o200k_base',
};
const rows: Array<[string, string, string, string]> = [];

function now(): bigint {
  return process.hrtime.bigint();
}
function ms(start: bigint): number {
  return Number(now() - start) / 1e6;
}
function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
function fmt(value: number | undefined): string {
  if (value === undefined) return 'n/a';
  if (value < 0.01) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 10) return `${value.toFixed(3)} ms`;
  if (value < 10_000) return `${value.toFixed(1)} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}
function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined ? 'n/a' : `${(a / b).toExponential(2)}`;
}

function freshCounter(backend: 'gpt-tokenizer' | 'js-tiktoken' = 'gpt-tokenizer'): BpeTokenCounter {
  const encoder =
    backend === 'gpt-tokenizer' ? new GptTokenizerEncoder('o200k_base') : new JsTiktokenEncoder('o200k_base');
  return new BpeTokenCounter(encoder, new SharedCountCaches(), 'gpt-4o', {
    encoding: 'o200k_base',
    approximate: false,
  });
}

function freshStrategy(maxContextTokens: number, counter: ITokenCounter = freshCounter()): SlidingWindowStrategy {
  const { context } = createConformanceContext(
    'bench',
    { counter, counterFor: () => counter, strategyId: 'std-sliding-window-strategy' },
    undefined,
  );
  return createSlidingWindow(
    { model: 'gpt-4o', maxContextTokens, reserveOutputTokens: null, safetyMarginRatio: 0.1 },
    context,
  );
}

function newUser(turn: number): ChatMessage {
  return { role: 'user', content: `Turn ${turn}: what changed since the last build? 次の手順を教えてください。` };
}

async function benchSize(size: number, maxContextTokens: number): Promise<void> {
  const label = `${size.toLocaleString('en-US')} msgs, ${Math.round(maxContextTokens / 1024)}K`;
  const history = generateHistory(size, 42 + size);
  const turns = quick ? 5 : 20;

  // ctxkit: first call (fresh caches), per turn (+1 message), repeat, JSON-rebuilt history.
  // "First call" is a new conversation in a running process: a fresh counter (empty count caches)
  // and a fresh strategy each time, the median of several; the process-wide tokenizer tables and the
  // JIT are warm, as they are in an agent host after its first conversation.
  freshStrategy(maxContextTokens).compose(SYSTEM, generateHistory(50, 7), []);
  const firstCalls: number[] = [];
  let counter = freshCounter();
  let strategy = freshStrategy(maxContextTokens, counter);
  let firstPayload = strategy.compose(SYSTEM, [newUser(-1)], []);
  let tokenizedFirst = 0;
  let start = now();
  for (let sample = 0; sample < (quick ? 3 : 7); sample++) {
    counter = freshCounter();
    strategy = freshStrategy(maxContextTokens, counter);
    collectGarbage();
    start = now();
    firstPayload = strategy.compose(SYSTEM, history, []);
    firstCalls.push(ms(start));
    tokenizedFirst = counter.tokenizedTotals().texts;
  }
  const ctxFirst = median(firstCalls);
  const budget = strategy.budget().available;
  let current = history;
  const perTurn: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    current = [...current, newUser(turn)];
    start = now();
    strategy.compose(SYSTEM, current, []);
    perTurn.push(ms(start));
  }
  const repeat: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    start = now();
    strategy.compose(SYSTEM, current, []);
    repeat.push(ms(start));
  }
  const rebuilt: number[] = [];
  let json = current;
  for (let turn = 0; turn < Math.min(turns, 10); turn++) {
    json = JSON.parse(JSON.stringify([...json, newUser(1000 + turn)])) as ChatMessage[];
    collectGarbage();
    start = now();
    strategy.compose(SYSTEM, json, []);
    rebuilt.push(ms(start));
  }

  // LangChain trimMessages with a memoized counter (its fair best), same budget and encoding.
  const lcCounter = freshCounter();
  const lcMessages = toLangChain(SYSTEM, history);
  const lcCount = memoizedCounter(lcCounter);
  collectGarbage();
  start = now();
  const lcFirstResult = await langchainTrim(lcMessages, budget, lcCount);
  const lcFirst = ms(start);
  const lcTurns = size >= 10_000 ? (quick ? 1 : 3) : quick ? 3 : 5;
  const lcPerTurn: number[] = [];
  let lcCurrent: BaseMessage[] = lcMessages;
  for (let turn = 0; turn < lcTurns; turn++) {
    lcCurrent = [...lcCurrent, new HumanMessage(`Turn ${turn}: what changed since the last build?`)];
    start = now();
    await langchainTrim(lcCurrent, budget, lcCount);
    lcPerTurn.push(ms(start));
  }
  const lcValid =
    lcFirstResult.length > 0 &&
    lcFirstResult.every((message) => message !== undefined) &&
    lcFirstResult[0]?.getType() === 'system';

  const entry = {
    size,
    maxContextTokens,
    budgetTokens: budget,
    ctxkit: {
      firstMs: ctxFirst,
      perTurnMs: median(perTurn),
      repeatMs: median(repeat),
      jsonRebuiltMs: median(rebuilt),
      keptMessages: firstPayload.messages.length - 1,
      textsTokenizedOnFirstCall: tokenizedFirst,
      outputTokens: firstPayload.stats.output_tokens,
      valid: findPayloadProblems(firstPayload.messages).length === 0,
    },
    langchainMemoized: {
      firstMs: lcFirst,
      perTurnMs: median(lcPerTurn),
      keptMessages: lcFirstResult.length - 1,
      validOutput: lcValid,
    },
    ratio: { first: ctxFirst / lcFirst, perTurn: median(perTurn) / median(lcPerTurn) },
  };
  (results.sizes as unknown[]).push(entry);
  rows.push([label, 'first call', fmt(ctxFirst), `${fmt(lcFirst)}  (×${ratio(ctxFirst, lcFirst)})`]);
  rows.push([
    label,
    'per turn (+1 msg)',
    fmt(median(perTurn)),
    `${fmt(median(lcPerTurn))}  (×${ratio(median(perTurn), median(lcPerTurn))})`,
  ]);
  rows.push([label, 'repeat, nothing new', fmt(median(repeat)), '—']);
  rows.push([label, 'JSON-rebuilt history, per turn', fmt(median(rebuilt)), '—']);
  process.stdout.write(
    `  ${label}: first ${fmt(ctxFirst)} (${tokenizedFirst} texts tokenized, ${entry.ctxkit.keptMessages} kept), ` +
      `per turn ${fmt(median(perTurn))}, repeat ${fmt(median(repeat))}, JSON ${fmt(median(rebuilt))} | ` +
      `LangChain first ${fmt(lcFirst)}, per turn ${fmt(median(lcPerTurn))}\n`,
  );
}

async function benchPlainLangChain(): Promise<void> {
  const history = generateHistory(100, 142);
  const counter = freshCounter();
  const budget = freshStrategy(8192, counter).budget().available;
  const start = now();
  await langchainTrim(toLangChain(SYSTEM, history), budget, plainCounter(counter));
  const elapsed = ms(start);
  results.langchainPlainCounter100 = { size: 100, maxContextTokens: 8192, firstMs: elapsed };
  rows.push(['100 msgs, 8K', 'LangChain, plain counter (first call)', '—', fmt(elapsed)]);
  process.stdout.write(`  LangChain plain counter at 100 messages: ${fmt(elapsed)}\n`);
}

function benchHugeOutput(): void {
  const history = generateHistory(1000, 7);
  const huge = Array.from(
    { length: 90_000 },
    (_, index) => `${index}: gcc -O2 -c src/module-${index % 97}.c -o build/module-${index % 97}.o`,
  )
    .join('\n')
    .slice(0, 5 * 1024 * 1024);
  const withOutput: ChatMessage[] = [
    ...history,
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_huge', type: 'function', function: { name: 'run_command', arguments: '{"cmd":"make"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_huge', content: huge },
  ];
  const entry: Record<string, unknown> = { outputBytes: Buffer.byteLength(huge) };
  for (const maxContextTokens of [8192, 131072]) {
    const strategy = freshStrategy(maxContextTokens);
    collectGarbage();
    let start = now();
    const payload = strategy.compose(SYSTEM, withOutput, []);
    const first = ms(start);
    const after: number[] = [];
    for (let index = 0; index < 10; index++) {
      const again = [...withOutput];
      start = now();
      strategy.compose(SYSTEM, again, []);
      after.push(ms(start));
    }
    const last = payload.messages[payload.messages.length - 1]!;
    entry[`${maxContextTokens}`] = {
      firstMs: first,
      afterMs: median(after),
      valid: findPayloadProblems(payload.messages).length === 0,
      lastRole: last.role,
      outputTokens: payload.stats.output_tokens,
      budget: strategy.budget().available,
    };
    rows.push([
      `5 MiB tool output, ${Math.round(maxContextTokens / 1024)}K`,
      'first sight / after',
      `${fmt(first)} / ${fmt(median(after))}`,
      '—',
    ]);
    process.stdout.write(`  5 MiB output at ${maxContextTokens}: first ${fmt(first)}, after ${fmt(median(after))}\n`);
  }
  results.hugeToolOutput = entry;
}

/** The tool-output cache on 5 MB and 100 MB outputs, each in its own process (its peak memory is its own). */
function benchToolOutputCache(): void {
  const entry: Record<string, unknown> = {};
  for (const megabytes of quick ? [5] : [5, 100]) {
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', path.join(__dirname, 'tool-output-cache-bench.js'), String(megabytes)],
      { encoding: 'utf8', timeout: 300_000 },
    );
    if (child.status !== 0) {
      rows.push([
        `tool-output cache, ${megabytes} MB output`,
        'cache + view',
        `failed: ${child.stderr.trim().split('\n')[0] ?? ''}`,
        '—',
      ]);
      continue;
    }
    const measured = JSON.parse(child.stdout.trim()) as {
      viewMs: number;
      expandLast50LinesMs: number;
      peakOverOutput: number;
      cachingPeakOverOutput: number;
      peakRssBytes: number;
      lines: number;
    };
    entry[`${megabytes}MB`] = measured;
    rows.push([`tool-output cache, ${megabytes} MB output`, 'cache + in-context view', fmt(measured.viewMs), '—']);
    rows.push([
      `tool-output cache, ${megabytes} MB output`,
      'expand last 50 lines (streamed)',
      fmt(measured.expandLast50LinesMs),
      '—',
    ]);
    rows.push([
      `tool-output cache, ${megabytes} MB output`,
      'memory the caching needs (heap + external) / RSS peak',
      `${measured.cachingPeakOverOutput.toFixed(2)}× / ${measured.peakOverOutput.toFixed(2)}× the output`,
      '—',
    ]);
    process.stdout.write(
      `  tool-output cache ${megabytes} MB: view ${fmt(measured.viewMs)}, expand ` +
        `tail ${fmt(measured.expandLast50LinesMs)}, caching ` +
        `needs ${measured.cachingPeakOverOutput.toFixed(2)}× the output (RSS ` +
        `peak ${measured.peakOverOutput.toFixed(2)}×)\n`,
    );
  }
  results.toolOutputCache = entry;
}

/** Unpunctuated kana with no period to exploit: `bytes` UTF-8 bytes of seeded random hiragana. */
function randomKana(bytes: number): string {
  const random = seededRandom(7);
  let text = '';
  for (let index = 0; index < Math.floor(bytes / 3); index++)
    text += String.fromCharCode(0x3042 + Math.floor(random() * 80));
  return text;
}

function benchTokenizers(): void {
  const texts: string[] = [];
  for (const record of loadConversations('tau-bench-airline'))
    for (const message of record.messages) texts.push(typeof message.content === 'string' ? message.content : '');
  const bytes = texts.reduce((total, text) => total + Buffer.byteLength(text), 0);
  const entry: Record<string, unknown> = {};
  for (const backend of ['gpt-tokenizer', 'js-tiktoken'] as const) {
    const counter = freshCounter(backend);
    counter.countUpTo('warm up', 10);
    const start = now();
    let tokens = 0;
    for (const text of texts) tokens += counter.countUpTo(text, Number.POSITIVE_INFINITY);
    const elapsed = ms(start);
    const pathological: Record<string, number> = {};
    const cases: Record<string, string> = {
      '1 MiB one letter': 'a'.repeat(1 << 20),
      '512 Ki chars of kana': 'あいうえおかきくけこ'.repeat(1 << 16).slice(0, 1 << 19),
      '1 MiB of random kana (seeded, no repeats)': randomKana(1 << 20),
      'base64 of zeros (1 MiB)': Buffer.alloc(786_432).toString('base64'),
    };
    for (const [name, text] of Object.entries(cases)) {
      if (quick && backend === 'js-tiktoken') continue;
      const begin = now();
      counter.countUpTo(text, Number.POSITIVE_INFINITY);
      pathological[name] = ms(begin);
    }
    entry[backend] = { tokens, ms: elapsed, mbPerSecond: bytes / 1e6 / (elapsed / 1000), pathologicalMs: pathological };
    rows.push([
      'tau-bench texts (tokenizer)',
      backend,
      `${(bytes / 1e6 / (elapsed / 1000)).toFixed(1)} MB/s, ${tokens} tokens`,
      Object.entries(pathological)
        .map(([name, value]) => `${name}: ${fmt(value)}`)
        .join('; '),
    ]);
    process.stdout.write(
      `  ${backend}: ${(bytes / 1e6 / (elapsed / 1000)).toFixed(1)} MB/s (${tokens} ` +
        `tokens); ${JSON.stringify(pathological)}\n`,
    );
  }
  results.tokenizers = entry;
}

async function benchTauBench(): Promise<void> {
  const records = loadConversations('tau-bench-airline');
  const maxContextTokens = 4096;
  const ctxTimes: number[] = [];
  const lcTimes: number[] = [];
  let ctxInvalid = 0;
  let lcInvalid = 0;
  let turns = 0;
  for (const record of quick ? records.slice(0, 30) : records) {
    const system = record.messages[0]!.content as string;
    const history = record.messages.slice(1) as ChatMessage[];
    const counter = freshCounter();
    const strategy = freshStrategy(maxContextTokens, counter);
    const budget = strategy.budget().available;
    const lcCount = memoizedCounter(freshCounter());
    const lcAll = toLangChain(system, history);
    for (let end = 1; end <= history.length; end++) {
      if (history[end - 1]!.role !== 'user') continue;
      turns++;
      const slice = history.slice(0, end);
      let start = now();
      const payload = strategy.compose(system, slice, []);
      ctxTimes.push(ms(start));
      if (findPayloadProblems(payload.messages).length > 0) ctxInvalid++;
      const lcSlice = lcAll.slice(0, end + 1);
      start = now();
      const trimmed = await langchainTrim(lcSlice, budget, lcCount);
      lcTimes.push(ms(start));
      if (
        trimmed.length === 0 ||
        trimmed[0] === undefined ||
        trimmed[0].getType() !== 'system' ||
        trimmed[trimmed.length - 1]?.content !== lcSlice[lcSlice.length - 1]!.content
      )
        lcInvalid++;
    }
  }
  results.tauBench = {
    conversations: quick ? 30 : records.length,
    turns,
    maxContextTokens,
    ctxkitPerTurnMs: median(ctxTimes),
    langchainPerTurnMs: median(lcTimes),
    ctxkitInvalidPayloads: ctxInvalid,
    langchainWithoutSystemOrNewestTurn: lcInvalid,
  };
  rows.push([
    `tau-bench airline, ${turns} turns, 4K`,
    'per turn (replay)',
    `${fmt(median(ctxTimes))} (invalid: ${ctxInvalid})`,
    `${fmt(median(lcTimes))} (no system or newest turn: ${lcInvalid})`,
  ]);
  process.stdout.write(
    `  tau-bench: ctxkit ${fmt(median(ctxTimes))} per turn, LangChain ${fmt(median(lcTimes))}; LangChain outputs ` +
      `missing the system prompt or the newest turn: ${lcInvalid}/${turns}\n`,
  );
}

async function main(): Promise<void> {
  results.sizes = [];
  process.stdout.write(`ctxkit bench (${quick ? 'quick' : 'full'}), ${results.platform}, Node ${process.version}\n`);
  benchTokenizers();
  for (const size of [100, 1000, 10_000])
    for (const maxContextTokens of [8192, 131072]) await benchSize(size, maxContextTokens);
  await benchPlainLangChain();
  benchHugeOutput();
  benchToolOutputCache();
  await benchTauBench();
  process.stdout.write('per turn, every standard strategy (offline, in its own process):\n');
  const strategyTable: StrategyTurnTable = benchStrategyTurns({ quick, results });
  await benchKernelOverhead({ quick, rows, results });
  results.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  rows.push(['process', 'peak RSS', `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (whole run)`, '']);

  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: ['history', 'measure', 'ctxkit sliding window', 'LangChain trimMessages (memoized) (ratio ctxkit/LC)'],
  });
  for (const row of rows) table.push(row);
  process.stdout.write(`${table.toString()}\n`);
  const perStrategy = new Table({ head: strategyTable.head });
  for (const row of strategyTable.rows) perStrategy.push(row);
  process.stdout.write(`${perStrategy.toString()}\n`);
  const out = path.join(__dirname, '..', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`results written to bench/results/latest.json\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
