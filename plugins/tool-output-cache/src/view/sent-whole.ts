import type { ChatMessage } from '@ctxkit/core';

/**
 * The caller's history with the view's copy wherever it shows a tool output whole (a copy: it carries the ref), so
 * that core's `payloadPreview` finds in the payload the messages a sparse reduction range left alone.
 */
export function asSentWhole(history: ReadonlyArray<ChatMessage>, view: ReadonlyArray<ChatMessage>): ChatMessage[] {
  return history.map((message, index) => {
    const shown = view[index];
    const wholeCopy = shown?.role === 'tool' && shown !== message && shown.content === message.content;
    return wholeCopy && message.role === 'tool' ? shown : message;
  });
}
