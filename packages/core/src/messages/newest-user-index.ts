import type { ChatMessage } from '../contracts/chat-message';

/** Index of the newest user message in `messages`, -1 when there is none. */
export function newestUserIndex(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index]!.role === 'user') return index;
  return -1;
}
