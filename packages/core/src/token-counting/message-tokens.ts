import type { ChatMessage } from '../contracts/chat-message';
import { imageTokens } from './image-tokens';
import { messageImages, messageText } from './message-text';
import { MESSAGE_OVERHEAD_TOKENS } from './token-counter';

/** What a message costs besides its text: the per-message overhead plus its images. */
export function messageOverheadTokens(message: Readonly<ChatMessage>): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const image of messageImages(message)) tokens += imageTokens(image);
  return tokens;
}

/**
 * Tokens of one message by the message counting rule, with `countText` counting its text (content plus tool
 * call names and arguments): every counter, exact or heuristic, uses this one rule.
 */
export function messageTokens(message: Readonly<ChatMessage>, countText: (text: string) => number): number {
  return countText(messageText(message)) + messageOverheadTokens(message);
}
