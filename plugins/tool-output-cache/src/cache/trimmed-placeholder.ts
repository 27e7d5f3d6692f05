import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

const PREFIX = '[tool output trimmed; ref=';

/** What the tool output budget, or a payload under pressure, sends instead of an older output (with its ref). */
export function trimmedPlaceholder(refId: string): string {
  return `${PREFIX}${refId}]`;
}

/** True when a tool message shows the placeholder of its ref (compared in place, none built). */
export function isTrimmed(message: Readonly<ToolMessage>): boolean {
  const ref = message.output_ref;
  if (ref === undefined) return false;
  const text = contentText(message.content);
  return (
    text.length === PREFIX.length + ref.id.length + 1 &&
    text.startsWith(PREFIX) &&
    text.startsWith(ref.id, PREFIX.length) &&
    text.endsWith(']')
  );
}
