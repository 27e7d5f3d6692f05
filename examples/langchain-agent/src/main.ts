/**
 * A LangChain.js v1 agent (`createAgent`) whose every model call a ctxkit strategy composes, through
 * `@ctxkit/langchain`'s middleware. Offline it replays two real conversations bundled with
 * `@ctxkit/core`: a tau-bench airline customer-service run at a 4,000-token ceiling with
 * `std-summarization-strategy`, and an OpenHands coding run at 16,000 with
 * `std-tool-output-cache-strategy`. The customer's messages go in one by one, a replaying chat model
 * answers as the recorded agent did, and the tools answer with the recorded outputs. Each request
 * the model receives is counted independently (js-tiktoken, o200k) and checked for provider validity.
 * The airline run is replayed once more with its summaries written by the application's own chat
 * model (a stand-in `FakeListChatModel`) through `llmClientFromChatModel`.
 *
 *   npm run build && node examples/langchain-agent/dist/main.js
 */
import 'reflect-metadata';

import { createTokenCounter, type LLMPayload } from '@ctxkit/core';
import {
  AIRLINE_SCENARIO,
  checkReplayedRequest,
  CODING_SCENARIO,
  loadRecordedConversation,
  recordedTurns,
  type ReplayedCallReport,
  type ReplayScenario,
} from '@ctxkit/example-recorded-replay';
import {
  ctxkitMiddleware,
  fromChatMessage,
  llmClientFromChatModel,
  toChatMessages,
  toToolDefinition,
} from '@ctxkit/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';

import { recordedTools, type ToolReplayLog } from './recorded-tools';
import { type ModelRequest, ReplayChatModel } from './replay-chat-model';
import { SummaryChatModel } from './summary-chat-model';

export { AIRLINE_SCENARIO, CODING_SCENARIO, type ReplayScenario };

/**
 * What one model call received: `messages` counts the system message, `historyMessages` the agent's
 * state at that call, `tokens` the messages and bound tools.
 */
export interface ModelCallReport extends ReplayedCallReport {
  /** Tool definitions bound. */
  tools: string[];
}

/** What {@link replayScenario} returns. */
export interface ReplayResult {
  scenario: ReplayScenario;
  calls: ModelCallReport[];
  /** Every request the model received. */
  requests: ModelRequest[];
  /** The agent's state at the end (every message, none composed away). */
  finalMessages: BaseMessage[];
  /** Messages of the recorded conversation (without its system prompt). */
  recordedMessages: number;
  tools: ToolReplayLog;
}

const counter = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' });

/**
 * Replays one recorded conversation through `createAgent` with the ctxkit middleware; with
 * `summaryModel`, the strategy's summaries are written by that chat model (`llmClientFromChatModel`).
 */
export async function replayScenario(
  scenario: ReplayScenario,
  log: (line: string) => void = () => undefined,
  summaryModel?: BaseChatModel,
): Promise<ReplayResult> {
  const record = loadRecordedConversation(scenario.conversation, scenario.recordId);
  const payloads: LLMPayload[] = [];
  const llm = summaryModel ? llmClientFromChatModel(summaryModel, { name: 'langchain:summary-writer' }) : undefined;
  const ctxkit = ctxkitMiddleware({
    pluginId: scenario.pluginId,
    config: {
      maxContextTokens: scenario.maxContextTokens,
      reserveOutputTokens: 0,
      ...(llm ? { summarizer: 'llm' } : {}),
    },
    ...(llm ? { runtimeOptions: { llm } } : {}),
    waitForIdle: true,
    onPayload: (payload) => payloads.push(payload),
  });
  const toolLog: ToolReplayLog = { recorded: 0, unrecorded: [] };
  const model = new ReplayChatModel();
  const agent = createAgent({
    model,
    tools: recordedTools(scenario.tools ?? record.tools ?? [], record.history, toolLog),
    systemPrompt: record.systemPrompt,
    middleware: [ctxkit],
  });
  log(
    `${scenario.name}: ${record.id}, ${scenario.pluginId}, ceiling ${scenario.maxContextTokens} ` +
      `tokens${llm ? `, summaries by ${llm.name}` : ''}`,
  );
  const threadId = record.id;
  const calls: ModelCallReport[] = [];
  let messages: BaseMessage[] = [];
  try {
    for (const [index, turn] of recordedTurns(record.history).entries()) {
      model.startTurn(turn.replies);
      const first = model.requests.length;
      const user = fromChatMessage(record.history[turn.index]!);
      const state = await agent.invoke(
        { messages: [...messages, user] },
        { configurable: { thread_id: threadId }, recursionLimit: 500 },
      );
      messages = state.messages;
      for (let call = first; call < model.requests.length; call++) {
        const request = model.requests[call]!;
        const chat = toChatMessages(request.messages);
        const report: ModelCallReport = {
          call: call + 1,
          turn: index + 1,
          messages: request.messages.length,
          historyMessages: payloads[call]?.stats.messages.input ?? 0,
          tokens: counter.countMessages(chat) + counter.countTools(request.tools.map(toToolDefinition)),
          tools: request.tools.map((bound) => (bound as { name: string }).name),
          ...checkReplayedRequest(chat, turn.userText, payloads[call]?.stats),
        };
        calls.push(report);
        const reduced = Object.entries(report.reductions)
          .map(([action, count]) => `${action} ${count}`)
          .join(', ');
        log(
          `  call ${report.call} (turn ${report.turn}): sent ${report.messages} of ${report.historyMessages + 1} ` +
            `messages, ${report.tokens} tokens${reduced ? `; ${reduced}` : ''}`,
        );
      }
    }
  } finally {
    await ctxkit.dispose();
  }
  const peak = Math.max(...calls.map((call) => call.tokens));
  log(
    `  ${calls.length} model calls, peak ${peak} of ${scenario.maxContextTokens} tokens; the agent's state holds ` +
      `all ${messages.length} messages`,
  );
  return {
    scenario,
    calls,
    requests: model.requests,
    finalMessages: messages,
    recordedMessages: record.history.length,
    tools: toolLog,
  };
}

/** What {@link replayWithModelSummaries} returns: the replay and the summary model's work. */
export interface ModelSummariesResult extends ReplayResult {
  summaryModel: SummaryChatModel;
}

/** Replays the airline scenario with its summaries written by a chat model of the application's. */
export async function replayWithModelSummaries(
  log: (line: string) => void = () => undefined,
): Promise<ModelSummariesResult> {
  const summaryModel = new SummaryChatModel();
  const result = await replayScenario(AIRLINE_SCENARIO, log, summaryModel);
  log(
    `  ${summaryModel.requests.length} summary requests; the last ` +
      `summary: ${summaryModel.summaries.at(-1) ?? '(none)'}`,
  );
  return { ...result, summaryModel };
}

/** Replays both scenarios, then the airline one with summaries by the application's chat model. */
export async function main(log: (line: string) => void = console.log): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const scenario of [AIRLINE_SCENARIO, CODING_SCENARIO]) results.push(await replayScenario(scenario, log));
  results.push(await replayWithModelSummaries(log));
  return results;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
