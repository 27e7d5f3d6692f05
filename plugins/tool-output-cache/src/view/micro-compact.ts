import type { ChatMessage, ToolMessage } from '@ctxkit/core';
import { callAnswered, contentText } from '@ctxkit/core/strategy-kit';

/** `[Previous: used {tool_name}]`, or `[Previous: used {tool_name}; ref=<id>]` for an output the cache holds. */
export function microCompactPlaceholder(toolName: string, refId?: string): string {
  return refId === undefined ? `[Previous: used ${toolName}]` : `[Previous: used ${toolName}; ref=${refId}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}

/** The tool name the message at `index` answers; `'unknown'` when no call matches from `from` (the view's start) on. */
export function toolNameAt(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): string {
  return callAnswered(messages, index, from)?.function.name ?? 'unknown';
}
