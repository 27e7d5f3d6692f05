import { type ChatMessage } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

/** All text a model would read in a payload (contents, tool-call names and arguments). */
export function payloadText(messages: ReadonlyArray<ChatMessage>): string {
  let text = '';
  for (const message of messages) text += messageText(message) + '\n';
  return text;
}
