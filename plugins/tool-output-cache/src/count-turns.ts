import type { ChatMessage } from '@ctxkit/core';

/** The turn number events carry: the count of user messages in a history. */
export function countTurns(history: ReadonlyArray<ChatMessage>): number {
  let turns = 0;
  for (const message of history) if (message.role === 'user') turns++;
  return turns;
}
