import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload, ReductionAction, ReductionRecord } from '../contracts/llm-payload';

/**
 * One reduction of one compose, as the trace keeps it: the record of `stats.reductions` without its
 * token counts. Indexes are into the history the host passed to that compose.
 */
export interface SessionTraceReduction {
  action: ReductionAction;
  /** First history index of the range. */
  from: number;
  /** End of the range (exclusive). */
  to: number;
  /** Messages affected (`to - from` unless the range is sparse). */
  messages: number;
  reason: string;
  /** Cache refs, transcript ids, summary ids (`summary:3`) that hold what left. */
  refs?: string[];
}

/**
 * What one compose did to the session's history, by index, never by text: how many messages it was
 * given and sent, every reduction of `stats.reductions`, which messages were pinned and which tool
 * outputs were sent behind which ref.
 */
export interface SessionTraceEntry {
  /** The compose's number in the session, from 1 (one compose per model call). */
  call: number;
  /** When the compose finished (milliseconds since epoch, the session's clock). */
  at: number;
  /** Length of the history the host passed. */
  history: number;
  /** Messages in the payload sent. */
  sent: number;
  reductions: SessionTraceReduction[];
  /** `stats.extra.summaryVersion` when the strategy reports one. */
  summaryVersion?: number;
  /** History indexes of the pinned messages shown in the pinned block. */
  pinned?: number[];
  /** `[history index, ref]` of each tool output sent as a shortened view whose whole output is kept behind `ref`. */
  outputRefs?: Array<[number, string]>;
}

/** The trace's record of one reduction. */
function traceReduction(record: ReductionRecord): SessionTraceReduction {
  const reduction: SessionTraceReduction = {
    action: record.action,
    from: record.from,
    to: record.to,
    messages: record.messages,
    reason: record.reason,
  };
  if (record.refs !== undefined && record.refs.length > 0) reduction.refs = [...record.refs];
  return reduction;
}

/**
 * Tool outputs of `history` sent as a view with an `output_ref` the host's message did not have:
 * looked up only inside trimmed, truncated or micro-compacted ranges, by `tool_call_id`.
 */
function outputRefsOf(history: ReadonlyArray<ChatMessage>, payload: LLMPayload): Array<[number, string]> | undefined {
  const ranges = payload.stats.reductions.filter(
    (record) => record.action === 'trimmed' || record.action === 'truncated' || record.action === 'micro-compacted',
  );
  if (ranges.length === 0) return undefined;
  const refByCall = new Map<string, string>();
  for (const message of payload.messages) {
    if (message.role === 'tool' && message.output_ref !== undefined)
      refByCall.set(message.tool_call_id, message.output_ref.id);
  }
  if (refByCall.size === 0) return undefined;
  const found: Array<[number, string]> = [];
  for (const range of ranges) {
    const end = Math.min(range.to, history.length);
    for (let index = range.from; index < end; index++) {
      const message = history[index]!;
      if (message.role !== 'tool') continue;
      const ref = refByCall.get(message.tool_call_id);
      if (ref !== undefined && message.output_ref?.id !== ref) found.push([index, ref]);
    }
  }
  return found.length > 0 ? found : undefined;
}

/** The trace entry of one compose: its payload's reductions and refs, and the pinned messages shown. */
export function sessionTraceEntry(
  call: number,
  at: number,
  history: ReadonlyArray<ChatMessage>,
  payload: LLMPayload,
  pinnedIndexes?: readonly number[],
): SessionTraceEntry {
  const entry: SessionTraceEntry = {
    call,
    at,
    history: history.length,
    sent: payload.messages.length,
    reductions: payload.stats.reductions.map(traceReduction),
  };
  const version = payload.stats.extra?.summaryVersion;
  if (typeof version === 'number' && Number.isInteger(version)) entry.summaryVersion = version;
  if (pinnedIndexes !== undefined && pinnedIndexes.length > 0) entry.pinned = [...pinnedIndexes];
  const refs = outputRefsOf(history, payload);
  if (refs !== undefined) entry.outputRefs = refs;
  return entry;
}
