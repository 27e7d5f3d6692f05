import type { ChatMessage } from '@ctxkit/core';

/**
 * Indexes of the user messages in `history[from, to)`: a turn starts at a user message. Tool-call
 * groups never contain a user message, so cutting at a turn start never splits a group.
 */
export function turnStarts(history: ReadonlyArray<Readonly<ChatMessage>>, from = 0, to = history.length): number[] {
  const starts: number[] = [];
  for (let index = from; index < to; index++) if (history[index]!.role === 'user') starts.push(index);
  return starts;
}
