/**
 * The Vercel AI SDK with a ctxkit strategy, on two recorded conversations replayed through
 * `generateText` with tools and a mock model (`MockLanguageModelV4` from `ai/test`) that answers as
 * the recorded agent did:
 *
 * - a tau-bench airline conversation on `std-summarization-strategy` at a 4,000-token ceiling (the
 *   airline policy and the 14 tool definitions alone take about 2,650 tokens), composed by the
 *   language-model middleware;
 * - an OpenHands coding run on `std-tool-output-cache-strategy` at 16,000 tokens, where old outputs
 *   become `[tool output trimmed; ref=…]` placeholders and the model reads one back with the
 *   strategy's `tool_output_cache` tool, run by the strategy through the AI SDK;
 * - the tau-bench conversation again, its summaries written by the application's own AI SDK model
 *   (a second mock model) through `llmClientFromLanguageModel`.
 *
 *   npm run build && node examples/ai-sdk-agent/dist/main.js
 */
import 'reflect-metadata';

import { ctxkitMiddleware, llmClientFromLanguageModel } from '@ctxkit/ai-sdk';
import type { PayloadStats, ReductionAction } from '@ctxkit/core';
import { AIRLINE_TOOL_DEFINITIONS, loadRecordedConversation } from '@ctxkit/example-recorded-replay';

import { recordedAiTools } from './recorded-ai-tools';
import { replayConversation, type ReplayReport } from './replay-conversation';
import { type SummaryRequest, SummaryWriterModel } from './summary-writer-model';

/**
 * The tau-bench conversation replayed by default (8 customer messages, 23 tool calls, about 7,300 tokens of history).
 */
export const TAU_BENCH_RECORD_ID = 'tau-bench/airline/gpt-4o/task-33/trial-0';

/** The OpenHands run replayed by default (46 messages, about 28,000 tokens of history). */
export const OPENHANDS_RECORD_ID = 'openhands/multi-swe-bench/ponylang__ponyc-4595';

/** One replay: which conversation, which strategy at which ceiling, and what every request carried. */
export interface ScenarioResult {
  recordId: string;
  strategyId: string;
  /** `maxContextTokens - reserveOutputTokens`: no request may be larger. */
  ceiling: number;
  report: ReplayReport;
}

/** Options of a scenario. */
export interface ScenarioOptions {
  /** The record to replay. */
  recordId?: string;
  /** @default console.log */
  log?: (line: string) => void;
}

const ACTIONS: ReductionAction[] = ['summarized', 'dropped', 'trimmed', 'micro-compacted', 'truncated', 'compacted'];

function reductionsOf(stats: PayloadStats | undefined): string {
  if (!stats) return '';
  const counts = new Map<ReductionAction, number>();
  for (const reduction of stats.reductions)
    counts.set(reduction.action, (counts.get(reduction.action) ?? 0) + reduction.messages);
  const parts = ACTIONS.filter((action) => (counts.get(action) ?? 0) > 0).map(
    (action) => `${action} ${counts.get(action)}`,
  );
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

function logReport(result: ScenarioResult, log: (line: string) => void): void {
  const { report } = result;
  report.requests.forEach((request, index) => {
    const stats = report.stats[index];
    const tokens = stats ? `${stats.output_tokens} of ${stats.budget.available} tokens` : 'not composed';
    log(
      `  request ${index + 1}: ${request.prompt.length} messages, ${(request.tools ?? []).length} ` +
        `tools, ${tokens}${reductionsOf(stats)}`,
    );
  });
  const largest = Math.max(...report.stats.map((stats) => stats.output_tokens));
  log(
    `  ${report.requests.length} requests over ${report.turns} user turns; the largest ${largest} tokens ` +
      `(ceiling ${result.ceiling}); the application kept all ${report.messages.length} messages`,
  );
}

/** Replays a tau-bench airline conversation on the summarization strategy at a 4,000-token ceiling. */
export async function runTauBench(options: ScenarioOptions = {}): Promise<ScenarioResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = loadRecordedConversation('tau-bench-airline', options.recordId ?? TAU_BENCH_RECORD_ID);
  const config = { maxContextTokens: 4000, reserveOutputTokens: 0 };
  const ctxkit = ctxkitMiddleware({
    pluginId: 'std-summarization-strategy',
    config,
    sessionId: 'tau-bench',
    waitForIdle: true,
  });
  log(
    `${record.id} through generateText with ctxkitMiddleware, ${(await ctxkit.getAgent()).strategyId} ` +
      `at ${config.maxContextTokens} tokens, offline summaries:`,
  );
  try {
    const report = await replayConversation({
      record,
      tools: recordedAiTools(AIRLINE_TOOL_DEFINITIONS, record.history),
      middleware: ctxkit,
    });
    const result: ScenarioResult = {
      recordId: record.id,
      strategyId: ctxkit.agent.strategyId,
      ceiling: config.maxContextTokens - config.reserveOutputTokens,
      report,
    };
    logReport(result, log);
    return result;
  } finally {
    await ctxkit.dispose();
  }
}

/** A replay whose summaries an AI SDK model wrote: what it was asked and what it wrote. */
export interface ModelSummariesResult extends ScenarioResult {
  summaryRequests: SummaryRequest[];
  summaries: string[];
}

/**
 * Replays the tau-bench conversation on the summarization strategy with its summaries written by an
 * AI SDK model: `llmClientFromLanguageModel(model)` is the agent's LLM client (`loadOptions.llm`).
 */
export async function runTauBenchWithModelSummaries(options: ScenarioOptions = {}): Promise<ModelSummariesResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = loadRecordedConversation('tau-bench-airline', options.recordId ?? TAU_BENCH_RECORD_ID);
  const config = { maxContextTokens: 4000, reserveOutputTokens: 0, summarizer: 'llm' };
  const writer = new SummaryWriterModel();
  const llm = llmClientFromLanguageModel(writer.model);
  const ctxkit = ctxkitMiddleware({
    pluginId: 'std-summarization-strategy',
    config,
    sessionId: 'tau-bench-model-summaries',
    waitForIdle: true,
    loadOptions: { llm },
  });
  log(
    `${record.id} through generateText with ctxkitMiddleware, ${(await ctxkit.getAgent()).strategyId} ` +
      `at ${config.maxContextTokens} tokens, summaries by ${llm.name}:`,
  );
  try {
    const report = await replayConversation({
      record,
      tools: recordedAiTools(AIRLINE_TOOL_DEFINITIONS, record.history),
      middleware: ctxkit,
    });
    const result: ModelSummariesResult = {
      recordId: record.id,
      strategyId: ctxkit.agent.strategyId,
      ceiling: config.maxContextTokens - config.reserveOutputTokens,
      report,
      summaryRequests: writer.requests,
      summaries: writer.summaries,
    };
    logReport(result, log);
    log(
      `  ${writer.requests.length} summary requests to ${llm.name}; the last ` +
        `summary: ${writer.summaries.at(-1) ?? '(none)'}`,
    );
    return result;
  } finally {
    await ctxkit.dispose();
  }
}

/**
 * Replays an OpenHands run on the tool output cache at a 16,000-token ceiling; the model reads trimmed outputs back.
 */
export async function runOpenHands(options: ScenarioOptions = {}): Promise<ScenarioResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = loadRecordedConversation('openhands-multi-swe-bench', options.recordId ?? OPENHANDS_RECORD_ID);
  const config = { maxContextTokens: 16000, reserveOutputTokens: 0 };
  const ctxkit = ctxkitMiddleware({
    pluginId: 'std-tool-output-cache-strategy',
    config,
    sessionId: 'openhands',
    waitForIdle: true,
  });
  log(
    `${record.id} through generateText with ctxkitMiddleware, ${(await ctxkit.getAgent()).strategyId} ` +
      `at ${config.maxContextTokens} tokens:`,
  );
  try {
    const report = await replayConversation({
      record,
      tools: recordedAiTools(record.tools ?? [], record.history),
      middleware: ctxkit,
      expandTrimmedOutputs: true,
    });
    const result: ScenarioResult = {
      recordId: record.id,
      strategyId: ctxkit.agent.strategyId,
      ceiling: config.maxContextTokens - config.reserveOutputTokens,
      report,
    };
    logReport(result, log);
    for (const expansion of report.expansions) {
      const bytes = expansion.pages.reduce((sum, page) => sum + Buffer.byteLength(page), 0);
      log(
        `  request ${expansion.request} read ${expansion.refId} back with tool_output_cache ` +
          `in ${expansion.pages.length} page(s), ${bytes} bytes`,
      );
    }
    return result;
  } finally {
    await ctxkit.dispose();
  }
}

/** Runs the three replays. */
export async function runAiSdkAgent(options: Pick<ScenarioOptions, 'log'> = {}): Promise<ScenarioResult[]> {
  return [await runTauBench(options), await runOpenHands(options), await runTauBenchWithModelSummaries(options)];
}

if (require.main === module) {
  runAiSdkAgent().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
