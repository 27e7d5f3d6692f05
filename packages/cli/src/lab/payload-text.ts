import { messageText, type ChatMessage } from '@ctxkit/core';

/** All text a model would read in a payload (contents, tool-call names and arguments). */
export function payloadText(messages: ReadonlyArray<ChatMessage>): string {
  let text = '';
  for (const message of messages) text += messageText(message) + '\n';
  return text;
}
