import type { ChatMessage } from '@ctxkit/core';
import type { ModelMessage } from 'ai';

/** The AI SDK message a ctxkit message was converted from (and, for a tool result, its part's position). */
export interface MessageOrigin {
  source: ModelMessage;
  /** Position of the tool-result part in `source.content` (tool messages only). */
  part?: number;
}

const origins = new WeakMap<object, MessageOrigin>();

/**
 * Remembers where a converted message came from. The messages are frozen, so a message that comes
 * back as the same object is unchanged and converts back to exactly its source.
 */
export function recordOrigin(message: ChatMessage, origin: MessageOrigin): void {
  origins.set(message, origin);
}

/** Where a ctxkit message came from, when it is one the adapter converted (the same object). */
export function originOf(message: Readonly<ChatMessage>): MessageOrigin | undefined {
  return origins.get(message);
}
