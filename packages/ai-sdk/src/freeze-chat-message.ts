import type { ChatMessage } from '@ctxkit/core';

function freezeAll(values: readonly object[] | undefined): void {
  if (!values) return;
  for (const value of values) Object.freeze(value);
  Object.freeze(values);
}

/**
 * Freezes a converted message, its content parts, tool calls and reasoning items (not what the
 * items carry), so that an unchanged message can be recognised by identity. Strategies never
 * write to the history they are given; callers that want another message make a copy.
 *
 * Not `freezeDeep`: the data of an `ai-sdk` reasoning item holds the AI SDK message's own part (a
 * reasoning part with its provider options, a tool result's output items), shared rather than
 * copied, and the caller's messages must stay as writable as they were.
 */
export function freezeChatMessage<T extends ChatMessage>(message: T): T {
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'image_url') Object.freeze(part.image_url);
    }
    freezeAll(message.content);
  }
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) Object.freeze(call.function);
    freezeAll(message.tool_calls);
    freezeAll(message.reasoning);
  }
  return Object.freeze(message);
}
