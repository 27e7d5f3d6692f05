/**
 * An airline booking agent on the entity extraction strategy: instead of the dialogue flow, the
 * model receives a schema-validated booking state (`<conversation_state>`, the tau-bench airline
 * schema) and only the last turn verbatim. The agent has one model client, given to `createAgent`:
 * it answers the agent's turns and the strategy's extraction calls alike. Offline it replays a real
 * tau-bench conversation: the customer's messages are sent one by one, a scripted client answers as
 * the recorded agent did and answers the extraction calls with the plugin's offline extractor, and
 * the airline tools answer with the recorded outputs. With an LLM configured in the environment
 * (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY) the same customer talks to that model,
 * which also does the extraction; requests name the manifest's model (`gpt-4o`: change `model` in
 * plugin.json to your endpoint's).
 *
 *   npm run build && node examples/booking-agent/dist/main.js
 */
import 'reflect-metadata';

import * as path from 'node:path';

import type { ChatMessage, ILLMClient, PayloadStats } from '@ctxkit/core';
import { createContextRuntime } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import {
  AIRLINE_TOOL_DEFINITIONS,
  createRecordedTools,
  loadRecordedConversation,
  recordedTurns,
  ReplayModel,
} from '@ctxkit/example-recorded-replay';
import { createAgent, createLLMClientFromEnv } from '@ctxkit/kernel';

import { standInExtractionReply } from './stand-in-extraction-model';

/** The tau-bench conversation replayed by default: a booking for a friend, paid in two ways. */
export const DEFAULT_RECORD_ID = 'tau-bench/airline/gpt-4o/task-11/trial-0';

/** One customer turn as the model received it. */
export interface BookingTurnReport {
  turn: number;
  userText: string;
  /** Model calls of the turn. */
  steps: number;
  /** Tools called in the turn, in order. */
  toolCalls: string[];
  /** Messages and tokens of the turn's last payload. */
  messagesSent: number;
  tokensSent: number;
  /** Tokens of everything the strategy was given (system, tools, the whole history). */
  tokensGiven: number;
  /** User messages in that payload (the state replaces the earlier ones). */
  userMessagesSent: number;
  /** History messages left out of that payload (their content lives on in the state). */
  historyLeftOut: number;
  /** The extracted state the payload carried, and its version. */
  state: Record<string, unknown>;
  stateVersion: number;
  /** Tokens of the state block. */
  stateTokens: number;
}

/** Options of {@link runBookingAgent}. */
export interface BookingAgentOptions {
  /** The tau-bench record to replay. @default {@link DEFAULT_RECORD_ID} */
  recordId?: string;
  /** At most this many customer turns. @default all of them */
  maxTurns?: number;
  /** The model; @default the one the environment configures, else the scripted replay of the recorded agent */
  llm?: ILLMClient;
  /** @default console.log */
  log?: (line: string) => void;
}

/** What {@link runBookingAgent} returns. */
export interface BookingAgentResult {
  llm: string;
  offline: boolean;
  extractor: string;
  turns: BookingTurnReport[];
  /** Every request the model received (the scripted replay only; empty with a real model). */
  requests: Array<{ messages: ChatMessage[] }>;
  /** The session's whole history at the end (what the agent keeps; the payloads are smaller). */
  history: readonly ChatMessage[];
}

function entitiesOf(stats: PayloadStats): {
  state: Record<string, unknown>;
  version: number;
  stateTokens: number;
  extractor: string;
} {
  const entities = (stats.extra?.entities ?? {}) as {
    state?: Record<string, unknown>;
    version?: number;
    stateTokens?: number;
    extractor?: string;
  };
  return {
    state: entities.state ?? {},
    version: entities.version ?? 0,
    stateTokens: entities.stateTokens ?? 0,
    extractor: entities.extractor ?? 'unknown',
  };
}

/** Replays the customer's side of a tau-bench conversation and reports, per turn, what the model received. */
export async function runBookingAgent(options: BookingAgentOptions = {}): Promise<BookingAgentResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = loadRecordedConversation('tau-bench-airline', options.recordId ?? DEFAULT_RECORD_ID);
  const configured = options.llm ?? createLLMClientFromEnv();
  const runtime = await createContextRuntime();
  const manifestPath = path.join(__dirname, '..', 'plugin.json');
  const handle = await runtime.loadAgent(manifestPath);
  const replay = new ReplayModel('scripted-tau-bench-agent');
  const extraction = new ScriptedLLMClient([standInExtractionReply], { repeatLast: true });
  // Offline, one scripted client: the extraction calls (JSON answers) get the stand-in's, the agent's turns the
  // recording's.
  const scripted: ILLMClient = {
    name: replay.client.name,
    defaultModel: replay.client.defaultModel,
    offline: true,
    complete: (request) =>
      request.responseFormat === 'json' ? extraction.complete(request) : replay.client.complete(request),
  };
  const llm = configured ?? scripted;
  const systemPrompt = handle.manifest.systemPrompt ?? record.systemPrompt;
  const agent = createAgent(handle, {
    llm,
    systemPrompt,
    tools: createRecordedTools(AIRLINE_TOOL_DEFINITIONS, record.history),
  });
  log(
    `booking-agent: strategy ${handle.strategyId}, model ` +
      `client ${llm.name}${llm.offline ? ' (offline, replaying the recorded agent)' : ''}; replaying ${record.id}`,
  );
  const turns: BookingTurnReport[] = [];
  let extractor = 'unknown';
  try {
    const recorded = recordedTurns(record.history).slice(0, options.maxTurns);
    for (const [position, turn] of recorded.entries()) {
      replay.startTurn(turn);
      const result = await agent.run(turn.userText, { waitForIdle: true });
      const stats = result.payloads[result.payloads.length - 1]!;
      const lastRequest = replay.client.requests[replay.client.requests.length - 1];
      const entities = entitiesOf(stats);
      extractor = entities.extractor;
      const report: BookingTurnReport = {
        turn: position + 1,
        userText: turn.userText,
        steps: result.steps,
        toolCalls: result.toolCalls.map((call) => call.toolName),
        messagesSent: stats.messages.output,
        tokensSent: stats.output_tokens,
        tokensGiven: stats.input_tokens,
        userMessagesSent: configured
          ? 1
          : (lastRequest?.messages.filter((message) => message.role === 'user').length ?? 0),
        historyLeftOut: stats.reductions
          .filter((reduction) => reduction.action === 'dropped')
          .reduce((sum, reduction) => sum + reduction.messages, 0),
        state: entities.state,
        stateVersion: entities.version,
        stateTokens: entities.stateTokens,
      };
      turns.push(report);
      log(`turn ${report.turn}: "${report.userText.slice(0, 70)}${report.userText.length > 70 ? '…' : ''}"`);
      log(
        `  ${report.steps} model ` +
          `call(s)${report.toolCalls.length > 0 ? `, tools ${report.toolCalls.join(', ')}` : ''}; ` +
          `sent ${report.messagesSent} messages / ${report.tokensSent} tokens ` +
          `of ${report.tokensGiven}, ${report.historyLeftOut} history messages left out`,
      );
      log(`  state v${report.stateVersion} (${report.stateTokens} tokens): ${JSON.stringify(report.state)}`);
    }
    log(`extractor: ${extractor}`);
    return {
      llm: llm.name,
      offline: llm.offline,
      extractor,
      turns,
      requests: configured ? [] : replay.client.requests.map((request) => ({ messages: request.messages })),
      history: agent.history(),
    };
  } finally {
    await handle.dispose();
  }
}

if (require.main === module) {
  runBookingAgent().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
