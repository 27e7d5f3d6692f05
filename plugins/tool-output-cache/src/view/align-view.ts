import type { ChatMessage } from '@ctxkit/core';
import type { ViewEntry } from './view-entry';

/** A working view laid over the caller's history, for the payload composer to select from. */
export interface AlignedView {
  /** Same length and indexes as the caller's history: each position holds what would be sent for it. */
  messages: ChatMessage[];
  /** Positions before this are not sent verbatim (a compaction's retain + summary stand for them). */
  startIndex: number;
  /** The retain + summary messages of a compaction (entries without a source), oldest first. */
  memory: ChatMessage[];
  /**
   * The position whose (compacted) message the carried user message took, when it took one: the
   * caller's message there is replaced like those before `startIndex`.
   */
  displaced?: number;
}

/**
 * Lays a working view (cached views, placeholders, the compacted prefix) over the caller's history:
 * every entry with a source replaces the caller's message at that index, and the compaction's
 * retain + summary are returned apart, for a memory block. A user message that a compaction carried
 * after its summary takes the position right before the kept messages, so it is sent between the
 * summary and them. Positions the view leaves out keep the caller's message.
 */
export function alignView(entries: ReadonlyArray<ViewEntry>, history: ReadonlyArray<ChatMessage>): AlignedView {
  const messages = history.slice();
  const memory: ChatMessage[] = [];
  let carried: ChatMessage | undefined;
  let firstKept: number | undefined;
  for (const entry of entries) {
    if (entry.source === null) memory.push(entry.message);
    else if (entry.carried) carried = entry.message;
    else {
      messages[entry.source] = entry.message;
      firstKept ??= entry.source;
    }
  }
  if (memory.length === 0 && carried === undefined) return { messages, startIndex: 0, memory };
  let startIndex = firstKept ?? history.length;
  if (carried === undefined || startIndex === 0) return { messages, startIndex, memory };
  messages[--startIndex] = carried;
  return { messages, startIndex, memory, displaced: startIndex };
}
