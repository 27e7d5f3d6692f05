import * as fs from 'node:fs';
import * as path from 'node:path';

import type { AgentManifest, ChatMessage } from '@ctxkit/core';
import { type ConversationRecord, loadConversations } from '@ctxkit/core/testing';

/**
 * What the processes of the Redis fleet tests share: the two agents each process serves (offline
 * summarization and offline entity extraction with the airline schema), the bundled tau-bench
 * conversations they serve, how a conversation is cut into turns, and the messages between a test and
 * its worker processes.
 */

/** Folds two turns whenever more than two are unsummarized; a dead process's claim expires soon. */
export const SUMMARIZER_AGENT: AgentManifest = {
  id: 'fleet-summarizer',
  model: 'gpt-4o',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-summarization-strategy',
    config: { summarizer: 'offline', threshold: 2, batchTurns: 2, retryBackoffMs: 0, summaryTimeoutMs: 2_000 },
  },
};

/** The airline schema shipped with the entity extraction plugin. */
function airlineSchema(): Record<string, unknown> {
  const plugin = path.dirname(path.dirname(require.resolve('@ctxkit/strategy-entity-extraction')));
  return JSON.parse(fs.readFileSync(path.join(plugin, 'schemas', 'airline-booking.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** Offline extraction (no model) of the airline booking state. */
export const EXTRACTOR_AGENT: AgentManifest = {
  id: 'fleet-extractor',
  model: 'gpt-4o',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-entity-extraction-strategy',
    config: { stateSchema: airlineSchema() },
  },
};

let records: ConversationRecord[] | undefined;

/** The bundled tau-bench airline conversations. */
export function tauBench(): ConversationRecord[] {
  return (records ??= loadConversations('tau-bench-airline'));
}

/**
 * Turn `k` of a conversation: its compose carries the history up to its user message, its turn-end
 * report the history up to the next turn's user message (or the whole history after the last turn).
 */
export interface TurnCut {
  /** Messages of turn `k`'s compose. */
  request: number;
  /** Messages of turn `k`'s report. */
  report: number;
}

export function turnCuts(history: ReadonlyArray<ChatMessage>): TurnCut[] {
  const users = history.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  return users.map((start, k) => ({ request: start + 1, report: users[k + 1] ?? history.length }));
}

/** The summary record's fields a test compares. */
export interface SummaryView {
  version: number;
  coveredMessages: number;
  coveredTurns: number;
  fingerprint: string;
  text: string;
}

/** The entity record's fields a test compares. */
export interface EntityView {
  state: Record<string, unknown>;
  versions: Array<{
    version: number;
    sourceMessageIndex: number;
    diff: Array<{ field: string; before: unknown; after: unknown }>;
  }>;
  processedThrough: number;
}

/** What a test asks a worker, about session `session` (conversation `record` of {@link tauBench}). */
export type FleetAsk =
  /** Compose the payload of both agents over the first `messages` messages. */
  | { type: 'compose'; session: string; record: number; messages: number }
  /** Report the end of a turn to both agents with the first `messages` messages, then wait until they are idle. */
  | { type: 'report'; session: string; record: number; messages: number }
  /** Pin a text labelled `label` in the summarizing agent's session. */
  | { type: 'pin'; session: string; label: string }
  /** Remove the pin labelled `label`, if the session has it. */
  | { type: 'unpin'; session: string; label: string }
  /** Undo the newest fold of the session, if any. */
  | { type: 'undo'; session: string }
  /** The session's fold ranges (`from-to`) and pin labels. */
  | { type: 'inspect'; session: string }
  /** Dispose the agents, close the store, report the events and exit. */
  | { type: 'stop' };

export type FleetRequest = FleetAsk & { id: number };

/** What a worker answers to each request. */
export interface FleetResult {
  /** compose: ms each agent's composePayload took. */
  latencies?: number[];
  /** compose: true for the process's first compose (it also loads the tokenizer and warms up). */
  cold?: boolean;
  /** compose: provider-validity problems of the payloads (none expected). */
  problems?: string[];
  /** undo: the epoch undone. */
  undone?: string | null;
  /** inspect. */
  folds?: string[];
  pins?: string[];
  /** stop: events counted by name, and the error events and store warnings. */
  counts?: Record<string, number>;
  errors?: string[];
}

export type FleetReply =
  { type: 'ready' } | { id: number; type: 'done'; result: FleetResult } | { id: number; type: 'failed'; error: string };
