import type { ChatMessage } from '@ctxkit/core';

/**
 * The caller's history with the view's copy at each position that shows its tool output whole: the
 * messages a payload of the view carries "as they are". Core's `payloadPreview` tells the positions a
 * sparse reduction range left alone by whether the payload holds the message there; a cached output
 * shown whole is a copy (it carries its ref), not the caller's object.
 */
export function asSentWhole(history: ReadonlyArray<ChatMessage>, view: ReadonlyArray<ChatMessage>): ChatMessage[] {
  return history.map((message, index) => {
    const shown = view[index];
    return shown !== undefined &&
      shown !== message &&
      message.role === 'tool' &&
      shown.role === 'tool' &&
      shown.content === message.content
      ? shown
      : message;
  });
}
