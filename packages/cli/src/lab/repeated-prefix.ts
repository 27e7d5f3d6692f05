import type { ChatMessage, ITokenCounter, ToolDefinition } from '@ctxkit/core';

/** A payload as the provider receives it: tool definitions, then the messages (system prompt first). */
export interface SentPayload {
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
}

/**
 * Tokens of `current` that repeat the start of `previous` byte for byte, in whole units: the tool
 * definitions (providers put them first), then each leading message equal to the previous
 * payload's message at the same place. Providers bill such a repeated prefix as a prompt-cache hit
 * (OpenAI cached input, Anthropic cache reads) when it is long enough; this is the share a strategy
 * controls. 0 for the first payload of a conversation.
 */
export function repeatedPrefixTokens(
  previous: SentPayload | undefined,
  current: SentPayload,
  counter: ITokenCounter,
): number {
  if (previous === undefined) return 0;
  if (JSON.stringify(previous.tools) !== JSON.stringify(current.tools)) return 0;
  let tokens = current.tools.length > 0 ? counter.countTools(current.tools) : 0;
  const shared = Math.min(previous.messages.length, current.messages.length);
  for (let index = 0; index < shared; index++) {
    const message = current.messages[index]!;
    if (message !== previous.messages[index] && JSON.stringify(message) !== JSON.stringify(previous.messages[index]))
      break;
    tokens += counter.countMessage(message);
  }
  return tokens;
}
