import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core';

/**
 * The placeholder of a trimmed tool output: what the tool output budget, or a payload under
 * pressure, sends instead of an older output (the message keeps its `output_ref`).
 */
export function trimmedPlaceholder(refId: string): string {
  return `[tool output trimmed; ref=${refId}]`;
}

/** True when a tool message shows the trimmed placeholder of its ref. */
export function isTrimmed(message: Readonly<ToolMessage>): boolean {
  return message.output_ref !== undefined && contentText(message.content) === trimmedPlaceholder(message.output_ref.id);
}
