import type { AgentManifest, ChatMessage, LLMCompletionRequest, StoreKey } from '@ctxkit/core';

import { extractorAgent } from '../extractor-agent';

/**
 * The conversation two processes serve in the two-process test, the agents they load, the model that
 * answers them, and the messages between the test and its worker processes. Shared by the test and
 * the worker, so both build the same history for a turn.
 */

/** Turns of the conversation. */
export const TURNS = 20;

/** The reservation code turn `n` asks about; the summaries and the entity state must keep every one. */
export function reservationCode(n: number): string {
  return `RES${1000 + n}`;
}

/** Turn `n`: a user message, a tool call with its result, an answer. */
export function turnMessages(n: number): ChatMessage[] {
  const code = reservationCode(n);
  return [
    { role: 'user', content: `Turn ${n}: please look up reservation ${code} for user user_${n}.` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${n}`,
          type: 'function',
          function: { name: 'get_reservation_details', arguments: `{"reservation_id":"${code}"}` },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: `call_${n}`,
      content: JSON.stringify({
        reservation_id: code,
        flight: `HAT${100 + n}`,
        note: 'Lorem ipsum dolor sit amet '.repeat(8),
      }),
    },
    { role: 'assistant', content: `Reservation ${code} is on flight HAT${100 + n}. Anything else?` },
  ];
}

/** The first `turns` turns, whole. */
export function conversation(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, index) => turnMessages(index + 1)).flat();
}

/** Store key of the model calls the workers record (one JSON line per call). */
export function modelCallsKey(sessionId: string): StoreKey {
  return { agentId: 'two-process-test', sessionId, kind: 'state', name: 'model-calls' };
}

/** One model call as a worker records it. */
export interface ModelCall {
  worker: string;
  kind: 'summary' | 'extraction';
  /** The turns whose messages the call was sent (a summary's batch; an extraction's new user messages). */
  turns: number[];
}

/** The summarizing agent: a fold of two turns whenever more than two are unsummarized. */
export const SUMMARIZER_AGENT: AgentManifest = {
  id: 'two-process-summarizer',
  model: 'gpt-4o',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-summarization-strategy',
    // the scripted summaries name no identifiers: the summary checks are not what this test is about
    config: {
      summarizer: 'llm',
      threshold: 2,
      batchTurns: 2,
      retryBackoffMs: 0,
      summaryTimeoutMs: 15_000,
      checkSummaries: false,
    },
  },
};

/** The extracting agent: one state field per turn, the turn's reservation code. */
export const EXTRACTOR_AGENT: AgentManifest = extractorAgent(
  'two-process-extractor',
  Object.fromEntries(
    Array.from({ length: TURNS }, (_, index) => [`turn_${index + 1}`, { type: 'string', pattern: '^RES[0-9]{4}$' }]),
  ),
);

/**
 * The scripted model: an extraction request (it carries `<new_user_message>` blocks) is answered with
 * `{ "turn_<n>": "<code>" }` for every new user message; a summary request with every reservation code
 * in the previous summary and the transcript, so that a summary keeps all the turns it folded.
 */
export function answerModel(request: LLMCompletionRequest): { reply: string; call: Omit<ModelCall, 'worker'> } {
  const sent = request.messages
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
  const turns = [...sent.matchAll(/Turn (\d+): please look up reservation/g)].map((match) => Number(match[1]));
  if (sent.includes('<new_user_message')) {
    const fields = Object.fromEntries(turns.map((turn) => [`turn_${turn}`, reservationCode(turn)]));
    return { reply: JSON.stringify(fields), call: { kind: 'extraction', turns } };
  }
  const codes = [...new Set(sent.match(/RES\d{4}/g) ?? [])].sort();
  return { reply: `<summary>Reservations looked up: ${codes.join(' ')}.</summary>`, call: { kind: 'summary', turns } };
}

/** What the test asks a worker. */
export type WorkerAsk =
  /** Compose the payload of turn `turn` (history up to its user message), then complete the turn (whole history). */
  | { type: 'turn'; turn: number }
  /** Wait until no fold runs. */
  | { type: 'idle' }
  /** Dispose the agents, close the store, report the events and exit. */
  | { type: 'stop' };

/** A request as it is sent: what is asked and the id its reply carries. */
export type WorkerRequest = WorkerAsk & { id: number };

/** Events a worker counts, by name, and the messages of its warnings and errors. */
export interface WorkerEvents {
  counts: Record<string, number>;
  problems: string[];
}

/** What a worker answers. */
export type WorkerReply =
  | { type: 'ready' }
  | { id: number; type: 'done'; events?: WorkerEvents }
  | { id: number; type: 'failed'; error: string };
