import type { ChatMessage } from '@ctxkit/core';

import type { ViewEntry } from '../view/view-entry';
import { type CompactionState, continuesCovered, startsWithPrefix } from './compaction-state';

/**
 * How the caller's history maps onto a compaction: retain + summary (messages without a source),
 * the user message carried after them (when any), then the caller's messages from `keepFrom` on,
 * whether the caller passes its full history (`full`) or adopted the compacted one (`adopted`).
 * Without a compaction (`none`) every message maps onto itself.
 */
export interface HistoryLayout {
  /** The compaction the layout follows; `undefined` when there is none. */
  state: Readonly<CompactionState> | undefined;
  form: 'none' | 'full' | 'adopted';
  /** Retain + summary, oldest first (the caller's own copies in the adopted form). */
  memory: ReadonlyArray<ChatMessage>;
  /** First index of the caller's history that maps onto itself. */
  keepFrom: number;
  /**
   * The user message a compaction carried after its summary (full form only; in the adopted form it
   * is the caller's message right after the summary) and its index in the caller's history: it keeps
   * that source, so that the window treats it as the current turn's start and a later compaction
   * finds it.
   */
  carried?: { message: ChatMessage; source: number };
}

/** The layout of a history without a compaction. */
export const NO_COMPACTION_LAYOUT: HistoryLayout = Object.freeze({
  state: undefined,
  form: 'none',
  memory: Object.freeze([]),
  keepFrom: 0,
});

/** True for the assistant message a provider compaction left: its compaction item alone, sent back as received. */
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
 * The layout of `history` over `state`; `undefined` when the history no longer continues the compacted conversation.
 * A provider compaction's message is no memory block but a message of the conversation, sent as it is
 * (its item must open the conversation): in the adopted form it is the caller's first message, sent
 * with the rest; in the full form it takes the position before the kept messages, as a carried user
 * message does, unless a user message is carried there already (then it is a memory block of its
 * readable text).
 */
export function layoutHistory(
  history: ReadonlyArray<ChatMessage>,
  state: Readonly<CompactionState> | undefined,
): HistoryLayout | undefined {
  if (!state) return NO_COMPACTION_LAYOUT;
  const provider = isProviderCompactionMessage(state.prefix[0]);
  const memory = state.prefix.length - (state.carriedSource === undefined ? 0 : 1);
  if (startsWithPrefix(history, state.prefix))
    return provider
      ? { state, form: 'adopted', memory: [], keepFrom: 0 }
      : { state, form: 'adopted', memory: history.slice(0, memory), keepFrom: memory };
  if (!continuesCovered(history, state)) return undefined;
  const { keepFrom, carriedSource } = state;
  if (provider && carriedSource === undefined)
    return { state, form: 'full', memory: [], keepFrom, carried: { message: state.prefix[0]!, source: keepFrom - 1 } };
  const carried =
    carriedSource === undefined ? {} : { carried: { message: state.prefix[memory]!, source: carriedSource } };
  return { state, form: 'full', memory: state.prefix.slice(0, memory), keepFrom, ...carried };
}

/**
 * The entries of a layout over a history of `length` messages: retain + summary, the carried user
 * message, then `messageAt(index)` for every kept index (the caller's message, or what the view
 * shows for it).
 */
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

/**
 * True when two layouts map a history the same way: the same compaction, form and kept start, the same carried message
 * and memory messages (a layout is made afresh at each call).
 */
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
