import type { ChatMessage } from '@ctxkit/core';
import type { ViewEntry } from '../view/view-entry';
import { continuesCovered, startsWithPrefix, type CompactionState } from './compaction-state';

/**
 * Maps the caller's history onto a compaction: retain + summary (entries without a source), the user
 * message carried after them (when any), then the kept messages, whether the caller passes its full
 * history or adopted the compacted one. Without a compaction every message maps onto itself.
 * Returns `undefined` when the history no longer continues the compacted conversation.
 */
export function mapHistory(history: ReadonlyArray<ChatMessage>, state: Readonly<CompactionState> | undefined): ViewEntry[] | undefined {
  if (!state) return history.map((message, index) => ({ message, source: index }));
  // A user message carried after the summary is the caller's own message: it keeps a source, so
  // that the window selection treats it as the current turn's start and a later compaction finds it.
  const memory = state.prefix.length - (state.carriedSource === undefined ? 0 : 1);
  if (startsWithPrefix(history, state.prefix)) {
    return history.map((message, index) => ({ message, source: index < memory ? null : index }));
  }
  if (continuesCovered(history, state)) {
    const entries: ViewEntry[] = state.prefix.slice(0, memory).map((message) => ({ message, source: null }));
    if (state.carriedSource !== undefined) entries.push({ message: state.prefix[memory]!, source: state.carriedSource, carried: true });
    for (let index = state.keepFrom; index < history.length; index++) entries.push({ message: history[index]!, source: index });
    return entries;
  }
  return undefined;
}
