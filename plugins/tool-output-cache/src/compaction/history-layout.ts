import type { ChatMessage } from '@ctxkit/core';

/** What a compaction left: `prefix` replaces the caller's history before `keepFrom`, however the caller passes it. */
export interface CompactionState {
  /** Retain + summary (or the provider's compaction item), then a copy of the carried user message, if any. */
  prefix: ChatMessage[];
  keepFrom: number;
  /** The caller's messages before `keepFrom`, to recognize the same history at the next call. */
  covered: ChatMessage[];
  transcriptRef: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Compactions so far in this session. */
  count: number;
  /** Index of the user message carried after the summary (a long one-turn agent run compacted inside its turn). */
  carriedSource?: number;
}

/** A compaction as an epoch keeps it: `covered` is the start of its own transcript. */
export type SavedCompactionState = Omit<CompactionState, 'covered'>;

export function sameMessage(a: Readonly<ChatMessage> | undefined, b: Readonly<ChatMessage> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.role !== b.role) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when `history` starts with the compaction's prefix (the caller adopted the compacted history). */
export function startsWithPrefix(history: ReadonlyArray<ChatMessage>, prefix: ReadonlyArray<ChatMessage>): boolean {
  if (prefix.length === 0 || history.length < prefix.length) return false;
  return prefix.every((message, index) => sameMessage(history[index], message));
}

/** True when `history` has the compacted history's messages before `keepFrom`. */
export function continuesCovered(
  history: ReadonlyArray<ChatMessage>,
  state: Pick<CompactionState, 'covered' | 'keepFrom'>,
): boolean {
  if (history.length < state.keepFrom) return false;
  for (let index = 0; index < state.keepFrom; index++)
    if (!sameMessage(history[index], state.covered[index])) return false;
  return true;
}

/** One message of the working view, and where it came from. */
export interface ViewEntry {
  message: ChatMessage;
  /** Index in the caller's history, or `null` for the retain / summary messages of a compaction. */
  source: number | null;
  /** True for the user message a compaction carried after its summary (away from its source). */
  carried?: boolean;
}

/**
 * How the caller's history maps onto a compaction: retain + summary, the carried user message (if any), then the
 * caller's messages from `keepFrom` on, whether it passes its full history or adopted the compacted one.
 */
export interface HistoryLayout {
  state: Readonly<CompactionState> | undefined;
  form: 'none' | 'full' | 'adopted';
  /** Retain + summary, oldest first (the caller's own copies in the adopted form). */
  memory: ReadonlyArray<ChatMessage>;
  /** The first index of the caller's history that maps onto itself. */
  keepFrom: number;
  /** The user message carried after the summary (full form only) and its index: the current turn starts there. */
  carried?: { message: ChatMessage; source: number };
}

export const NO_COMPACTION_LAYOUT: HistoryLayout = Object.freeze({
  state: undefined,
  form: 'none',
  memory: Object.freeze([]),
  keepFrom: 0,
});

/** True for the assistant message a provider compaction left: its compaction item alone. */
function isProviderCompactionMessage(message: Readonly<ChatMessage> | undefined): boolean {
  return (
    message?.role === 'assistant' &&
    message.content === null &&
    !message.tool_calls?.length &&
    message.reasoning?.length === 1 &&
    message.reasoning[0]!.data.type === 'compaction'
  );
}

/**
 * The layout of `history` over `state`; `undefined` when it no longer continues the compacted conversation. A provider
 * compaction's item must open the conversation: it is sent as a message, first (adopted) or carried (full), unless a
 * user message is carried already (it is then a memory block of its readable text).
 */
export function layoutHistory(
  history: ReadonlyArray<ChatMessage>,
  state: Readonly<CompactionState> | undefined,
): HistoryLayout | undefined {
  if (!state) return NO_COMPACTION_LAYOUT;
  const provider = isProviderCompactionMessage(state.prefix[0]);
  const memory = state.prefix.length - (state.carriedSource === undefined ? 0 : 1);
  const adopted = provider ? 0 : memory;
  if (startsWithPrefix(history, state.prefix))
    return { state, form: 'adopted', memory: history.slice(0, adopted), keepFrom: adopted };
  if (!continuesCovered(history, state)) return undefined;
  const { keepFrom, carriedSource } = state;
  if (provider && carriedSource === undefined)
    return { state, form: 'full', memory: [], keepFrom, carried: { message: state.prefix[0]!, source: keepFrom - 1 } };
  const carried =
    carriedSource === undefined ? {} : { carried: { message: state.prefix[memory]!, source: carriedSource } };
  return { state, form: 'full', memory: state.prefix.slice(0, memory), keepFrom, ...carried };
}

/** The entries of a layout over a history of `length` messages, `messageAt(index)` for every kept index. */
export function layoutEntries(
  layout: HistoryLayout,
  length: number,
  messageAt: (index: number) => ChatMessage,
): ViewEntry[] {
  const entries: ViewEntry[] = layout.memory.map((message) => ({ message, source: null }));
  if (layout.carried) entries.push({ message: layout.carried.message, source: layout.carried.source, carried: true });
  for (let index = layout.keepFrom; index < length; index++) entries.push({ message: messageAt(index), source: index });
  return entries;
}

/** True when two layouts, made afresh at each call, map a history the same way. */
export function sameLayout(a: HistoryLayout, b: HistoryLayout): boolean {
  return (
    a === b ||
    (a.state === b.state &&
      a.form === b.form &&
      a.keepFrom === b.keepFrom &&
      a.carried?.message === b.carried?.message &&
      a.carried?.source === b.carried?.source &&
      a.memory.length === b.memory.length &&
      a.memory.every((message, index) => message === b.memory[index]))
  );
}
