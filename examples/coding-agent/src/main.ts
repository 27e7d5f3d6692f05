/**
 * A coding agent on the tool output cache + compaction strategy, at a 16K window (`local-16k`).
 * Offline it replays a real OpenHands run on the ponyc repository: a scripted model answers as the
 * recorded agent did, `execute_bash` / `str_replace_editor` / `think` / `finish` answer with the
 * recorded outputs, and along the way the strategy caches every output, trims the oldest to
 * `[tool output trimmed; ref=…]`, micro-compacts old results to `[Previous: used …; ref=…]` and compacts
 * the history into retain + summary. Once, the scripted model asks `tool_output_cache` for a
 * trimmed output and gets it back in full. With an LLM configured in the environment
 * (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY) that model drives the run and writes the
 * compaction summaries instead.
 *
 *   npm run build && node examples/coding-agent/dist/main.js
 */
import 'reflect-metadata';

import { createHash } from 'node:crypto';
import * as path from 'node:path';

import {
  type ChatMessage,
  createContextRuntime,
  type ILLMClient,
  type PayloadStats,
  type ReductionAction,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { createRecordedTools, loadRecordedConversation } from '@ctxkit/example-recorded-replay';
import { createAgent, createLLMClientFromEnv } from '@ctxkit/kernel';

import { CodingReplayModel, EXPAND_PAGE_LINES, recordedSegments } from './recorded-run';

/** The OpenHands run replayed by default (47 messages, about 25,000 tokens of history). */
export const DEFAULT_RUN_ID = 'openhands/multi-swe-bench/ponylang__ponyc-4595';

/** What one model call received. */
export interface CodingStepReport {
  step: number;
  messagesSent: number;
  tokensSent: number;
  /** Tokens the payload may use (window − output reservation − 10%). */
  available: number;
  /** History messages affected in this payload, by action. */
  reductions: Partial<Record<ReductionAction, number>>;
}

/** One compaction. */
export interface CompactionReport {
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  transcriptRef: string;
}

/** One output the model expanded back from the cache. */
export interface ExpansionReport {
  refId: string;
  /** The model call that asked for it. */
  step: number;
  /** `tool_output_cache` calls it took (one per page). */
  calls: number;
  /** The expanded text equals the recorded tool output, byte for byte. */
  identical: boolean;
  bytes: number;
}

/** Options of {@link runCodingAgent}. */
export interface CodingAgentOptions {
  /** The OpenHands record to replay. @default {@link DEFAULT_RUN_ID} */
  runId?: string;
  /** The model; @default the one the environment configures, else the scripted replay */
  llm?: ILLMClient;
  /** @default console.log */
  log?: (line: string) => void;
}

/** What {@link runCodingAgent} returns. */
export interface CodingAgentResult {
  llm: string;
  offline: boolean;
  steps: CodingStepReport[];
  compactions: CompactionReport[];
  expansions: ExpansionReport[];
  /** Every agent request the model received (the scripted replay only). */
  requests: Array<{ messages: ChatMessage[] }>;
  /** Events seen, by name. */
  events: Record<string, number>;
}

const REPORTED_ACTIONS: ReductionAction[] = ['trimmed', 'micro-compacted', 'truncated', 'dropped', 'compacted'];

function reductionsOf(stats: PayloadStats): Partial<Record<ReductionAction, number>> {
  const counts: Partial<Record<ReductionAction, number>> = {};
  for (const reduction of stats.reductions)
    counts[reduction.action] = (counts[reduction.action] ?? 0) + reduction.messages;
  return counts;
}

/** Rebuilds a cached output from `tool_output_cache`'s numbered lines (`     N\tline`). */
function unnumber(expanded: string, byteSize: number): string {
  const rows = expanded.split('\n').filter((row) => /^ *\d+\t/.test(row));
  const text = rows.map((row) => row.replace(/^ *\d+\t/, '')).join('\n');
  return Buffer.byteLength(text) + 1 === byteSize ? `${text}\n` : text;
}

/** The content address the cache gives an output (`to_` + 32 hex digits of its SHA-256). */
function refIdOf(output: string): string {
  return `to_${createHash('sha256').update(output, 'utf8').digest('hex').slice(0, 32)}`;
}

/** Replays an OpenHands run through the agent loop and reports what the model received at each step. */
export async function runCodingAgent(options: CodingAgentOptions = {}): Promise<CodingAgentResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const runId = options.runId ?? DEFAULT_RUN_ID;
  const record = loadRecordedConversation('openhands-multi-swe-bench', runId);
  const configured = options.llm ?? createLLMClientFromEnv();
  const replay = new CodingReplayModel('scripted-openhands-agent');
  const llm = configured ?? replay.client;
  const runtime = await createContextRuntime();
  // The compaction summaries come from the same model (scripted offline).
  const handle = await runtime.loadAgent(path.join(__dirname, '..', 'plugin.json'), { llm });
  const events: Record<string, number> = {};
  const compactions: CompactionReport[] = [];
  for (const name of [
    'tool-output-cached',
    'tool-output-trim',
    'history-trim',
    'tool-output-gc',
    'compaction-start',
    'compaction-error',
  ] as const) {
    handle.events.on(name, () => {
      events[name] = (events[name] ?? 0) + 1;
    });
  }
  handle.events.on('compaction-end', (event) => {
    events['compaction-end'] = (events['compaction-end'] ?? 0) + 1;
    compactions.push({
      trigger: event.trigger,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      transcriptRef: event.transcriptRef,
    });
    log(
      `  compaction (${event.trigger}): ${event.tokensBefore} → ${event.tokensAfter} tokens; transcript saved ` +
        `as ${event.transcriptRef}`,
    );
  });
  const agent = createAgent(handle, {
    llm,
    systemPrompt: handle.manifest.systemPrompt ?? record.systemPrompt,
    tools: createRecordedTools(record.tools ?? [], record.history),
    maxSteps: 100,
  });
  log(
    `coding-agent: strategy ${handle.strategyId}, model ${handle.model} (16K window), model ` +
      `client ${llm.name}${llm.offline ? ' (offline, replaying the recorded agent)' : ''}; replaying ${record.id}`,
  );
  const steps: CodingStepReport[] = [];
  const expansions: ExpansionReport[] = [];
  const recordedOutputs = new Map<string, string>();
  for (const message of record.history)
    if (message.role === 'tool')
      recordedOutputs.set(refIdOf(contentText(message.content)), contentText(message.content));
  handle.events.on('payload-composed', (event) => {
    const report: CodingStepReport = {
      step: steps.length + 1,
      messagesSent: event.stats.messages.output,
      tokensSent: event.stats.output_tokens,
      available: event.stats.budget.available,
      reductions: reductionsOf(event.stats),
    };
    steps.push(report);
    const actions = REPORTED_ACTIONS.filter((action) => report.reductions[action]).map(
      (action) => `${action} ${report.reductions[action]}`,
    );
    log(
      `step ${report.step}: sent ${report.messagesSent} messages / ${report.tokensSent} of ${report.available} ` +
        `tokens${actions.length > 0 ? `; ${actions.join(', ')}` : ''}`,
    );
  });
  try {
    for (const segment of recordedSegments(record.history)) {
      replay.startSegment(segment);
      await agent.run(segment.userText, { waitForIdle: true });
    }
    for (const expansion of replay.expansions) {
      const original = recordedOutputs.get(expansion.refId);
      const text = expansion.complete ? unnumber(expansion.pages.join('\n'), Buffer.byteLength(original ?? '')) : '';
      const report: ExpansionReport = {
        refId: expansion.refId,
        step: expansion.step,
        calls: expansion.pages.length,
        identical: original !== undefined && text === original,
        bytes: Buffer.byteLength(text),
      };
      expansions.push(report);
      log(
        `step ${report.step} asked tool_output_cache(ref_id=${report.refId}) in ${report.calls} pages ` +
          `of ${EXPAND_PAGE_LINES} lines: ${report.bytes} bytes ` +
          `back, ${report.identical ? 'identical to' : 'DIFFERENT from'} the recorded output`,
      );
    }
    const summary = Object.entries(events)
      .map(([name, count]) => `${name} ×${count}`)
      .join(', ');
    log(`events: ${summary}`);
    return {
      llm: llm.name,
      offline: llm.offline,
      steps,
      compactions,
      expansions,
      requests: configured
        ? []
        : replay.client.requests
            .filter((request) => request.tools && request.tools.length > 0)
            .map((request) => ({ messages: request.messages })),
      events,
    };
  } finally {
    await handle.dispose();
  }
}

if (require.main === module) {
  runCodingAgent().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
