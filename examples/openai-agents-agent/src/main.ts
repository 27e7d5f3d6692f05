/**
 * An OpenAI Agents SDK agent whose conversation is a ctxkit session: `run(agent, input, { session })`
 * with `@ctxkit/openai-agents`'s `CtxkitSession` over the SDK's `MemorySession`, and the agent's model
 * wrapped by the session (`session.wrapModel(model)`), so that every model call is composed by a
 * ctxkit strategy. Offline it replays two real conversations bundled with
 * `@ctxkit/core`: a tau-bench airline customer-service run at a 4,000-token ceiling with
 * `std-summarization-strategy`, and an OpenHands coding run at 16,000 with
 * `std-tool-output-cache-strategy`. The customer's messages go in one run each, a replaying model
 * answers as the recorded agent did, and the tools answer with the recorded outputs. Each request
 * the model receives is counted independently (js-tiktoken, o200k) and checked for provider validity.
 * The agent also has the strategy's own tools (`await session.tools()`): in the coding run the
 * model reads a trimmed output back with `tool_output_cache`.
 *
 *   npm run build && node examples/openai-agents-agent/dist/main.js
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
import { CtxkitSession, toChatMessages, toToolDefinitions } from '@ctxkit/openai-agents';
import { Agent, type AgentInputItem, MemorySession, run, setTracingDisabled } from '@openai/agents';

import { recordedTools, type ToolReplayLog } from './recorded-tools';
import { type ReadBack, ReplayModel } from './replay-model';

export { AIRLINE_SCENARIO, CODING_SCENARIO, type ReplayScenario };

/**
 * What one model call received: `messages` counts the input as ctxkit messages (one model step with
 * its parallel calls is one message), `historyMessages` the stored history plus the run's new items,
 * `tokens` the instructions, input and function tools.
 */
export interface ModelCallReport extends ReplayedCallReport {
  /** Input items sent (the instructions not included). */
  items: number;
}

/** What {@link replayScenario} returns. */
export interface ReplayResult {
  scenario: ReplayScenario;
  calls: ModelCallReport[];
  /** The request inputs the model received. */
  inputs: AgentInputItem[][];
  /** Every item the session stored (none composed away). */
  storedItems: AgentInputItem[];
  /** Messages of the recorded conversation (without its system prompt). */
  recordedMessages: number;
  tools: ToolReplayLog;
  /** The trimmed output the model read back with the strategy's `tool_output_cache`, and what it got. */
  readBack?: ReadBack & { output: string };
}

const counter = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' });

/** The text of the stored result of the call `callId`. */
function readBackOutput(items: readonly AgentInputItem[], callId: string): string {
  const result = items.find(
    (item) =>
      (item as { type?: string }).type === 'function_call_result' && (item as { callId?: string }).callId === callId,
  ) as { output?: unknown } | undefined;
  const output = result?.output as { type?: string; text?: string } | string | undefined;
  return typeof output === 'string' ? output : (output?.text ?? '');
}

/** Replays one recorded conversation through `run(agent, input, { session })` with a ctxkit session. */
export async function replayScenario(
  scenario: ReplayScenario,
  log: (line: string) => void = () => undefined,
): Promise<ReplayResult> {
  setTracingDisabled(true);
  const record = loadRecordedConversation(scenario.conversation, scenario.recordId);
  const payloads: LLMPayload[] = [];
  const session = new CtxkitSession({
    pluginId: scenario.pluginId,
    config: { maxContextTokens: scenario.maxContextTokens, reserveOutputTokens: 0 },
    session: new MemorySession({ sessionId: record.id }),
    waitForIdle: true,
    onPayload: (payload) => payloads.push(payload),
  });
  const toolLog: ToolReplayLog = { recorded: 0, unrecorded: [] };
  const model = new ReplayModel();
  const agent = new Agent({
    name: 'replayed-agent',
    instructions: record.systemPrompt,
    // Wrapped by the session: each request is composed, and carries exactly the strategy tools its payload offers.
    model: session.wrapModel(model),
    // The recorded tools, plus the strategy's own (the tool output cache's tool_output_cache ...).
    tools: [
      ...recordedTools(
        scenario.tools ?? record.tools ?? [],
        record.history,
        (callId) => model.recordedCallId(callId),
        toolLog,
      ),
      ...(await session.tools()),
    ],
  });
  log(`${scenario.name}: ${record.id}, ${scenario.pluginId}, ceiling ${scenario.maxContextTokens} tokens`);
  const calls: ModelCallReport[] = [];
  try {
    for (const [index, turn] of recordedTurns(record.history).entries()) {
      model.startTurn(turn.replies);
      const first = model.requests.length;
      const composedBefore = payloads.length;
      await run(agent, turn.userText, { session, maxTurns: 200 });
      // One composition per model call, right before it is sent
      const perCall = payloads.slice(composedBefore);
      for (let call = first; call < model.requests.length; call++) {
        const request = model.requests[call]!;
        const input = request.input as AgentInputItem[];
        const chat = toChatMessages(input);
        const payload = perCall[call - first];
        const report: ModelCallReport = {
          call: call + 1,
          turn: index + 1,
          items: input.length,
          messages: chat.length,
          historyMessages: payload?.stats.messages.input ?? 0,
          tokens:
            counter.countMessages([{ role: 'system', content: request.systemInstructions ?? '' }, ...chat]) +
            counter.countTools(toToolDefinitions(request.tools as never)),
          ...checkReplayedRequest(chat, turn.userText, payload?.stats),
        };
        calls.push(report);
        const reduced = Object.entries(report.reductions)
          .map(([action, count]) => `${action} ${count}`)
          .join(', ');
        log(
          `  call ${report.call} (turn ${report.turn}): sent ${report.messages} of ${report.historyMessages} ` +
            `messages (${report.items} items), ${report.tokens} tokens${reduced ? `; ${reduced}` : ''}`,
        );
      }
    }
    const storedItems = await session.getItems();
    const peak = Math.max(...calls.map((call) => call.tokens));
    log(
      `  ${calls.length} model calls, peak ${peak} of ${scenario.maxContextTokens} tokens; the session stores ` +
        `all ${storedItems.length} items`,
    );
    const readBack = model.readBack
      ? { ...model.readBack, output: readBackOutput(storedItems, model.readBack.callId) }
      : undefined;
    if (readBack)
      log(
        `  call ${readBack.request} read ${readBack.refId} back with tool_output_cache ` +
          `(${Buffer.byteLength(readBack.output)} bytes), run by the strategy`,
      );
    return {
      scenario,
      calls,
      inputs: model.requests.map((request) => request.input as AgentInputItem[]),
      storedItems,
      recordedMessages: record.history.length,
      tools: toolLog,
      ...(readBack ? { readBack } : {}),
    };
  } finally {
    await session.dispose();
  }
}

/** Replays both scenarios. */
export async function main(log: (line: string) => void = console.log): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const scenario of [AIRLINE_SCENARIO, CODING_SCENARIO]) results.push(await replayScenario(scenario, log));
  return results;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
