import type { ChatMessage } from '@ctxkit/core';
import { callAnswered } from '@ctxkit/core/strategy-kit';

/**
 * The tool name the tool message at `index` answers (reused call ids resolve to the right call); `'unknown'` when no
 * call matches before `from`, the first position of the view.
 */
export function toolNameAt(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): string {
  return callAnswered(messages, index, from)?.function.name ?? 'unknown';
}
