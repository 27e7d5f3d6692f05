import type { ChatMessage } from '@ctxkit/core';

/**
 * The caller's history with the view's copy at each position that shows its tool output whole: core's `payloadPreview`
 * tells the positions a sparse reduction range left alone by whether the payload holds that message, and a cached
 * output shown whole is a copy (it carries its ref).
 */
export function asSentWhole(history: ReadonlyArray<ChatMessage>, view: ReadonlyArray<ChatMessage>): ChatMessage[] {
  return history.map((message, index) => {
    const shown = view[index];
    const wholeCopy = shown?.role === 'tool' && shown !== message && shown.content === message.content;
    return wholeCopy && message.role === 'tool' ? shown : message;
  });
}
