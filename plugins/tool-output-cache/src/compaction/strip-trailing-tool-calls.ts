import type { AssistantMessage, ChatMessage } from '@ctxkit/core';

/**
 * Shapes messages for the summary call: when the last message is an assistant
 * message with `tool_calls`, its calls have no results yet, and a provider rejects the request. It
 * is replaced by a copy with its `content` only, or left out when it has no content. Never mutates
 * its input; returns the same array when there is nothing to strip.
 */
export function stripTrailingToolCalls(messages: ReadonlyArray<ChatMessage>): ChatMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant' || !last.tool_calls || last.tool_calls.length === 0)
    return messages as ChatMessage[];
  const head = messages.slice(0, -1);
  const content = typeof last.content === 'string' ? last.content : '';
  if (content.trim() === '') return head;
  const { tool_calls: _calls, reasoning: _reasoning, ...rest } = last;
  const stripped: AssistantMessage = { ...rest, content };
  return [...head, stripped];
}
