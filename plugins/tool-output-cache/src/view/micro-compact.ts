import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/** The micro-compact placeholder. */
export function microCompactPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

/** True when a tool message shows a micro-compact placeholder instead of its output. */
export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}
