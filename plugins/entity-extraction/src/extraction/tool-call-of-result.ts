import type { ChatMessage, ToolCall } from '@ctxkit/core';

/**
 * The tool call a tool message answers: results follow their assistant message directly, so the
 * call is looked up among the calls of the nearest assistant message before it, by id at the
 * result's position first (ids can repeat within one conversation), then by id anywhere in that
 * message, then by position. `null` when no assistant message with calls precedes the result.
 */
export function toolCallOfResult(history: ReadonlyArray<Readonly<ChatMessage>>, resultIndex: number): ToolCall | null {
  const result = history[resultIndex];
  if (!result || result.role !== 'tool') return null;
  for (let index = resultIndex - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role === 'tool') continue;
    if (message.role !== 'assistant' || !message.tool_calls || message.tool_calls.length === 0) return null;
    const calls = message.tool_calls;
    const position = resultIndex - index - 1;
    const atPosition = calls[position];
    if (atPosition && atPosition.id === result.tool_call_id) return atPosition;
    return calls.find((call) => call.id === result.tool_call_id) ?? atPosition ?? null;
  }
  return null;
}
