import type { ChatMessage } from '@ctxkit/core';
import { callAnswered } from '@ctxkit/core/strategy-kit';

/** The tool name the message at `index` answers; `'unknown'` when no call matches from `from` (the view's start) on. */
export function toolNameAt(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): string {
  return callAnswered(messages, index, from)?.function.name ?? 'unknown';
}
