import type { ChatMessage } from '@ctxkit/core';

/**
 * One message of the strategy's working view of a history: the message to send (the caller's own
 * object, or a copy with a view, a placeholder or a stripped call) and where it came from.
 */
export interface ViewEntry {
  message: ChatMessage;
  /** Index in the caller's history, or `null` for the retain / summary messages of a compaction. */
  source: number | null;
  /**
   * True for the copy of the user message that a compaction carried after its summary: it has a
   * source but does not sit right before the kept messages in the caller's history.
   */
  carried?: boolean;
}
