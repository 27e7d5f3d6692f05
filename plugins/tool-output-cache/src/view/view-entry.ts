import type { ChatMessage } from '@ctxkit/core';

/** One message of the working view, and where it came from. */
export interface ViewEntry {
  message: ChatMessage;
  /** Index in the caller's history, or `null` for the retain / summary messages of a compaction. */
  source: number | null;
  /** True for the user message a compaction carried after its summary (away from its source). */
  carried?: boolean;
}
