import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/** `[Previous: used {tool_name}]`, or `[Previous: used {tool_name}; ref=<id>]` for an output the cache holds. */
export function microCompactPlaceholder(toolName: string, refId?: string): string {
  return refId === undefined ? `[Previous: used ${toolName}]` : `[Previous: used ${toolName}; ref=${refId}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}
