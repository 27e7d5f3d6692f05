import type { ChatMessage, ChatRole } from '../contracts/chat-message';
import type { ReductionAction } from '../contracts/llm-payload';
import { messageText } from '../token-counting/message-text';
import type { SessionTrace } from './session-trace';
import type { SessionTraceEntry, SessionTraceReduction } from './session-trace-entry';

/** What one compose did with one message of the history. */
export type MessageState = 'verbatim' | 'pinned' | ReductionAction;

/** A message's state in one compose, with what holds it when it left the payload. */
export interface MessageCallState {
  call: number;
  state: MessageState;
  /** The summary version that holds it (`summarized`), when known. */
  summaryVersion?: number;
  /** The refs that hold what left (a tool output ref, a transcript, `summary:3`). */
  refs?: string[];
  /** The reduction's reason (absent for `verbatim` and `pinned`). */
  reason?: string;
  /** The summary holding it was itself shortened to fit in this compose. */
  summaryShortened?: boolean;
}

/** Consecutive composes in which a message stayed in one state. */
export interface MessageLifeSpan extends Omit<MessageCallState, 'call'> {
  /** First compose of the span. */
  from: number;
  /** Last compose of the span. */
  to: number;
}

/** The life of one message that holds the string looked for. */
export interface MessageLife {
  /** Index in the history the host passed to each compose. */
  index: number;
  role: ChatRole;
  /** The tool call a tool message answers, or the calls an assistant message asks for. */
  toolCallIds?: string[];
  /** The compose that first had it in its history; `undefined` when that compose left the trace (see `seenBefore`). */
  firstSeen?: number;
  /** True when the message was already in the oldest compose the trace still holds (older composes were left out). */
  seenBefore: boolean;
  /** Its state in every traced compose that had it, in order. */
  calls: MessageCallState[];
  /** The same, merged into spans of one state. */
  spans: MessageLifeSpan[];
}

/** What `explainSession` found: the trace's extent and the life of every message holding `find`. */
export interface SessionExplanation {
  agentId: string;
  sessionId: string;
  strategyId: string;
  find: string;
  /** Composes the trace holds, and the first and last of them. */
  calls: number;
  firstCall?: number;
  lastCall?: number;
  /** Oldest composes left out of the trace to keep it within its size. */
  evicted: number;
  messages: MessageLife[];
}

/** Which reduction a message falls under when several ranges hold it: the one that says most about where it is. */
const PRECEDENCE: readonly ReductionAction[] = [
  'recalled',
  'summarized',
  'compacted',
  'extracted',
  'dropped',
  'trimmed',
  'micro-compacted',
  'truncated',
];

/**
 * Reductions that shorten a message left in the payload; a sparse range of them names its messages through
 * `outputRefs`.
 */
const SHORTENING: ReadonlySet<ReductionAction> = new Set(['trimmed', 'micro-compacted', 'truncated']);

/** The reduction of `entry` that holds history message `index`, if any. */
function reductionOf(
  entry: SessionTraceEntry,
  index: number,
  message: Readonly<ChatMessage>,
  outputRef: string | undefined,
): SessionTraceReduction | undefined {
  let best: SessionTraceReduction | undefined;
  for (const reduction of entry.reductions) {
    if (index < reduction.from || index >= reduction.to) continue;
    const sparse = reduction.messages < reduction.to - reduction.from;
    if (sparse && SHORTENING.has(reduction.action)) {
      // A sparse shortening names its messages by ref when it has refs; without refs, it shortened tool outputs.
      const named = entry.outputRefs !== undefined ? outputRef !== undefined : message.role === 'tool';
      if (!named) continue;
    }
    if (best === undefined || PRECEDENCE.indexOf(reduction.action) < PRECEDENCE.indexOf(best.action)) best = reduction;
  }
  return best;
}

function summaryVersionOf(reduction: SessionTraceReduction, entry: SessionTraceEntry): number | undefined {
  for (const ref of reduction.refs ?? []) {
    const match = /^summary:(\d+)$/.exec(ref);
    if (match) return Number(match[1]);
  }
  return entry.summaryVersion;
}

/** The state of history message `index` in one compose that had it. */
export function messageStateIn(
  entry: SessionTraceEntry,
  index: number,
  message: Readonly<ChatMessage>,
): MessageCallState {
  if (entry.pinned?.includes(index)) return { call: entry.call, state: 'pinned' };
  const outputRef = entry.outputRefs?.find(([at]) => at === index)?.[1];
  const reduction = reductionOf(entry, index, message, outputRef);
  if (reduction === undefined) return { call: entry.call, state: 'verbatim' };
  const state: MessageCallState = { call: entry.call, state: reduction.action, reason: reduction.reason };
  if (reduction.action === 'summarized') {
    const version = summaryVersionOf(reduction, entry);
    if (version !== undefined) state.summaryVersion = version;
    // A memory block cut to fit is an empty range at the end of the history.
    if (entry.reductions.some((other) => other.action === 'truncated' && other.from === other.to))
      state.summaryShortened = true;
  }
  const refs = outputRef !== undefined ? [outputRef] : SHORTENING.has(reduction.action) ? undefined : reduction.refs;
  if (refs !== undefined && refs.length > 0) state.refs = [...refs];
  return state;
}

function sameSpan(span: MessageLifeSpan, state: MessageCallState): boolean {
  return (
    span.state === state.state &&
    span.summaryVersion === state.summaryVersion &&
    span.summaryShortened === state.summaryShortened &&
    (span.refs ?? []).join('\n') === (state.refs ?? []).join('\n')
  );
}

/** Merges consecutive composes in one state into spans. */
export function lifeSpans(calls: ReadonlyArray<MessageCallState>): MessageLifeSpan[] {
  const spans: MessageLifeSpan[] = [];
  for (const state of calls) {
    const last = spans[spans.length - 1];
    if (last !== undefined && sameSpan(last, state)) {
      last.to = state.call;
      continue;
    }
    const { call, ...rest } = state;
    spans.push({ ...rest, from: call, to: call });
  }
  return spans;
}

function toolCallIdsOf(message: Readonly<ChatMessage>): string[] | undefined {
  if (message.role === 'tool') return [message.tool_call_id];
  if (message.role === 'assistant' && message.tool_calls?.length) return message.tool_calls.map((call) => call.id);
  return undefined;
}

/**
 * The life of every message of `history` whose text (content, tool call arguments) holds `find`:
 * first seen, then its state in each traced compose (sent verbatim, pinned, dropped, in which summary
 * version, trimmed behind which ref, recalled), merged into spans. `history` is the conversation the
 * session was composed from, as the host passed it (without the system prompt): the trace holds
 * indexes into it, not text.
 */
export function explainSession(
  trace: SessionTrace,
  history: ReadonlyArray<ChatMessage>,
  find: string,
): SessionExplanation {
  const entries = trace.entries;
  const explanation: SessionExplanation = {
    agentId: trace.agentId,
    sessionId: trace.sessionId,
    strategyId: trace.strategyId,
    find,
    calls: entries.length,
    evicted: trace.evicted,
    messages: [],
  };
  if (entries.length > 0) {
    explanation.firstCall = entries[0]!.call;
    explanation.lastCall = entries[entries.length - 1]!.call;
  }
  if (find === '') return explanation;
  history.forEach((message, index) => {
    if (!messageText(message).includes(find)) return;
    const calls: MessageCallState[] = [];
    for (const entry of entries) if (index < entry.history) calls.push(messageStateIn(entry, index, message));
    const seenBefore = trace.evicted > 0 && entries.length > 0 && index < entries[0]!.history;
    const life: MessageLife = { index, role: message.role, seenBefore, calls, spans: lifeSpans(calls) };
    const ids = toolCallIdsOf(message);
    if (ids !== undefined) life.toolCallIds = ids;
    if (!seenBefore && calls.length > 0) life.firstSeen = calls[0]!.call;
    explanation.messages.push(life);
  });
  return explanation;
}
