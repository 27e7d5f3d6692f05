import type { ChatMessage } from '@ctxkit/core';

/** Tool messages of `messages` that carry a ref (`stats.extra.toolOutputCache.refsInPayload`). */
export function refsIn(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
  let refs = 0;
  for (const message of messages) if (message.role === 'tool' && message.output_ref) refs++;
  return refs;
}
