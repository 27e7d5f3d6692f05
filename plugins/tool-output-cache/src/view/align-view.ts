import type { ChatMessage } from '@ctxkit/core';

import type { HistoryLayout } from '../compaction/history-layout';

/** A working view laid over the caller's history, for the payload composer to select from. */
export interface AlignedView {
  /** Same length and indexes as the caller's history: each position holds what would be sent for it. */
  messages: ChatMessage[];
  /** Positions before this are not sent verbatim (a compaction's retain + summary stand for them). */
  startIndex: number;
  /** The retain + summary messages of a compaction (entries without a source), oldest first. */
  memory: ChatMessage[];
  /** The position whose (compacted) message the carried user message took, when it took one. */
  displaced?: number;
}

/**
 * Where a compaction's layout lies over the caller's history (`length` messages), from `startIndex`: the kept messages
 * keep their indexes, and a user message carried after the summary takes the position right before them (`carriedAt`),
 * so that it is sent between the summary and them.
 */
export function placeLayout(layout: HistoryLayout, length: number): { startIndex: number; carriedAt?: number } {
  if (layout.memory.length === 0 && layout.carried === undefined) return { startIndex: 0 };
  const startIndex = Math.min(layout.keepFrom, length);
  if (layout.carried === undefined || startIndex === 0) return { startIndex };
  return { startIndex: startIndex - 1, carriedAt: startIndex - 1 };
}
