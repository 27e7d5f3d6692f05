import type { ChatMessage } from '../contracts/chat-message';
import { messageTokens } from './message-tokens';

/**
 * A message's tokens by the message counting rule ({@link messageTokens}), cached by message
 * identity in `cache`: a counter counts a message once, however often it is sent again.
 */
export function cachedMessageTokens(
  cache: WeakMap<object, number>,
  message: Readonly<ChatMessage>,
  countText: (text: string) => number,
): number {
  const cached = cache.get(message);
  if (cached !== undefined) return cached;
  const tokens = messageTokens(message, countText);
  cache.set(message, tokens);
  return tokens;
}
