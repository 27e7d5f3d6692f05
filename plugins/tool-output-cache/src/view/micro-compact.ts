import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/**
 * The micro-compact placeholder: `[Previous: used {tool_name}]`, or, for an output the cache holds,
 * `[Previous: used {tool_name}; ref=<id>]`, so that the model can read it back by that ref.
 */
export function microCompactPlaceholder(toolName: string, refId?: string): string {
  return refId === undefined ? `[Previous: used ${toolName}]` : `[Previous: used ${toolName}; ref=${refId}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

/** True when a tool message shows a micro-compact placeholder instead of its output. */
export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}
