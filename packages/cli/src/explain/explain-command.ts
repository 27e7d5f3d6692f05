import * as fs from 'node:fs';

import {
  type ChatMessage,
  explainSession,
  type IContextStore,
  readSessionTrace,
  type SessionExplanation,
  SessionTraceError,
} from '@ctxkit/core';

import type { CliOutput } from '../cli-output';
import { readTranscript } from '../lab/read-transcript';
import { sessionIdFor } from '../lab/session-id';
import type { TranscriptRecord } from '../lab/transcript-record';
import { explanationHtml } from './explain-html';
import { explanationText } from './explain-text';
import { openTraceStore } from './open-trace-store';

/** The options of `ctxkit explain` (see docs/11-cli.md). */
export interface ExplainOptions {
  /** A file store's directory or a `redis://` URL. */
  store: string;
  agent: string;
  session: string;
  find: string;
  /** The conversation the session was composed from (ctxkit keeps no copy of the host's history). */
  transcript: string;
  /** The id of the conversation in the transcript, when it holds several. */
  conversation?: string;
  html?: string;
  json?: boolean;
}

/**
 * The conversation of `records` the session was composed from: the one named, the one whose id gives the session id, or
 * the only one.
 */
function pickRecord(records: readonly TranscriptRecord[], options: ExplainOptions): TranscriptRecord {
  const named =
    options.conversation !== undefined ? records.find((record) => record.id === options.conversation) : undefined;
  const bySession = records.find(
    (record) => record.id === options.session || sessionIdFor(record.id) === options.session,
  );
  const record = named ?? bySession ?? (records.length === 1 ? records[0] : undefined);
  if (record !== undefined) return record;
  throw new SessionTraceError(
    `${options.transcript} holds ${records.length} conversations and none ` +
      `is${options.conversation !== undefined ? ` "${options.conversation}"` : ` the session "${options.session}"`}`,
    `Name the conversation with --conversation <id>, one of: ${records
      .slice(0, 5)
      .map((candidate) => candidate.id)
      .join(', ')}${records.length > 5 ? ', ...' : ''}.`,
    { transcript: options.transcript, conversations: records.length },
  );
}

/** The history the host passed to each compose: the conversation without its leading system prompt. */
function hostHistory(record: TranscriptRecord): ChatMessage[] {
  return record.messages[0]?.role === 'system' ? record.messages.slice(1) : record.messages;
}

/** The refs the explanation names that the store still holds (tool outputs). */
async function storedRefsOf(store: IContextStore, explanation: SessionExplanation): Promise<Set<string>> {
  const refs = new Set(explanation.messages.flatMap((life) => life.spans.flatMap((span) => span.refs ?? [])));
  if (refs.size === 0) return new Set();
  const names = (
    await store.listBlobs({ agentId: explanation.agentId, sessionId: explanation.sessionId, kind: 'tool-output' })
  ).map((key) => key.name);
  return new Set([...refs].filter((ref) => names.some((name) => name === ref || name.startsWith(ref))));
}

/**
 * Reads a session's trace from a store and the conversation from a transcript, and explains the
 * life of every message that holds `find`.
 * @throws SessionTraceError (`CTXKIT_TRACE_UNREADABLE`) for a store it cannot read, a session with no trace, a
 *   transcript that does not match it
 */
export async function explainFromStore(
  options: ExplainOptions,
): Promise<{ explanation: SessionExplanation; storedRefs: Set<string> }> {
  const records = await readTranscript(options.transcript);
  const history = hostHistory(pickRecord(records, options));
  const store = openTraceStore(options.store);
  try {
    const trace = await readSessionTrace(store, options.agent, options.session);
    const longest = Math.max(0, ...trace.entries.map((entry) => entry.history));
    if (longest > history.length) {
      throw new SessionTraceError(
        `the trace's composes had up to ${longest} messages of history and the conversation ` +
          `in ${options.transcript} has ${history.length}`,
        'Pass the conversation the session was composed from (its messages as the host sent them, the system prompt ' +
          'first).',
        { transcript: options.transcript, traced: longest, history: history.length },
      );
    }
    const explanation = explainSession(trace, history, options.find);
    return { explanation, storedRefs: await storedRefsOf(store, explanation).catch(() => new Set<string>()) };
  } finally {
    await store.close?.();
  }
}

/**
 * `ctxkit explain`: prints the life of every message holding the text; `--html` writes it as a timeline page. Exit 0
 * when a message holds it, 1 when none does.
 */
export async function explainCommand(options: ExplainOptions, output: CliOutput): Promise<number> {
  const { explanation, storedRefs } = await explainFromStore(options);
  if (options.html !== undefined) fs.writeFileSync(options.html, explanationHtml(explanation, storedRefs));
  output.out(options.json ? `${JSON.stringify(explanation, null, 2)}\n` : explanationText(explanation, storedRefs));
  if (options.html !== undefined && !options.json) output.err(`Timeline written to ${options.html}\n`);
  return explanation.messages.length > 0 ? 0 : 1;
}
