/**
 * A customer-support agent on the sliding window strategy (the default): the system
 * prompt and the tools always go first, then the newest turns that fit; the oldest are dropped
 * whole (an assistant tool call with its results). Offline it replays a real tau-bench airline
 * conversation at a small budget (4,200 tokens, of which the airline policy and the tools take
 * about 2,700): the customer's messages are sent one by one, a scripted model answers as the
 * recorded agent did and the airline tools answer with the recorded outputs. With an LLM
 * configured in the environment (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY) the same
 * customer talks to that model.
 *
 *   npm run build && node examples/customer-support-agent/dist/main.js
 */
import 'reflect-metadata';

import * as path from 'node:path';

import { type ChatMessage, createContextRuntime, type ILLMClient } from '@ctxkit/core';
import {
  AIRLINE_TOOL_DEFINITIONS,
  createRecordedTools,
  loadRecordedConversation,
  recordedTurns,
  ReplayModel,
} from '@ctxkit/example-recorded-replay';
import { createAgent, createLLMClientFromEnv } from '@ctxkit/kernel';

/** The tau-bench conversation replayed by default: 15 customer messages about removing a passenger. */
export const DEFAULT_RECORD_ID = 'tau-bench/airline/gpt-4o/task-15/trial-3';

/** One customer turn as the model received it (its last model call). */
export interface SupportTurnReport {
  turn: number;
  userText: string;
  /** Messages and tokens of the payload, and what the budget allowed. */
  messagesSent: number;
  tokensSent: number;
  available: number;
  /** Messages in the session's history at that point (system prompt excluded). */
  historyMessages: number;
  /** History messages the window left out of that payload. */
  dropped: number;
}

/** Options of {@link runSupportAgent}. */
export interface SupportAgentOptions {
  /** The tau-bench record to replay. @default {@link DEFAULT_RECORD_ID} */
  recordId?: string;
  /** The model; @default the one the environment configures, else the scripted replay of the recorded agent */
  llm?: ILLMClient;
  /** @default console.log */
  log?: (line: string) => void;
}

/** What {@link runSupportAgent} returns. */
export interface SupportAgentResult {
  llm: string;
  offline: boolean;
  turns: SupportTurnReport[];
  /** Every request the model received (the scripted replay only). */
  requests: Array<{ messages: ChatMessage[] }>;
  /** `history-trim` events seen. */
  historyTrimEvents: number;
}

/** Replays the customer's side of a tau-bench conversation and reports what the model received each turn. */
export async function runSupportAgent(options: SupportAgentOptions = {}): Promise<SupportAgentResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = loadRecordedConversation('tau-bench-airline', options.recordId ?? DEFAULT_RECORD_ID);
  const configured = options.llm ?? createLLMClientFromEnv();
  const runtime = await createContextRuntime();
  const handle = await runtime.loadAgent(path.join(__dirname, '..', 'plugin.json'));
  const replay = new ReplayModel('scripted-tau-bench-agent');
  const llm = configured ?? replay.client;
  let historyTrimEvents = 0;
  handle.events.on('history-trim', () => {
    historyTrimEvents++;
  });
  const agent = createAgent(handle, {
    llm,
    systemPrompt: handle.manifest.systemPrompt ?? record.systemPrompt,
    tools: createRecordedTools(AIRLINE_TOOL_DEFINITIONS, record.history),
  });
  log(
    `customer-support-agent: strategy ${handle.strategyId}, budget ${String(handle.config.maxContextTokens)} ` +
      `tokens, model client ${llm.name}${llm.offline ? ' (offline, replaying the recorded agent)' : ''}; ` +
      `replaying ${record.id}`,
  );
  const turns: SupportTurnReport[] = [];
  try {
    for (const [position, turn] of recordedTurns(record.history).entries()) {
      replay.startTurn(turn);
      const result = await agent.run(turn.userText);
      const stats = result.payloads[result.payloads.length - 1]!;
      const report: SupportTurnReport = {
        turn: position + 1,
        userText: turn.userText,
        messagesSent: stats.messages.output,
        tokensSent: stats.output_tokens,
        available: stats.budget.available,
        historyMessages: stats.messages.input - 1,
        dropped: stats.dropped,
      };
      turns.push(report);
      log(
        `turn ${report.turn}: sent ${report.messagesSent} messages / ${report.tokensSent} of ${report.available} ` +
          `tokens; ` +
          `${report.dropped} of ${report.historyMessages} history messages dropped ` +
          `("${report.userText.slice(0, 50)}${report.userText.length > 50 ? '…' : ''}")`,
      );
    }
    log(`history-trim events: ${historyTrimEvents}`);
    return {
      llm: llm.name,
      offline: llm.offline,
      turns,
      requests: configured ? [] : replay.client.requests.map((request) => ({ messages: request.messages })),
      historyTrimEvents,
    };
  } finally {
    await handle.dispose();
  }
}

if (require.main === module) {
  runSupportAgent().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
