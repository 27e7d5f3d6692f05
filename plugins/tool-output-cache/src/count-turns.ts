import type { ChatMessage } from '@ctxkit/core';
import { HistoryGrowth } from './history-growth';

/** The turn number events carry: the count of user messages in a history (from `from` on). */
export function countTurns(history: ReadonlyArray<ChatMessage>, from = 0): number {
  let turns = 0;
  for (let index = from; index < history.length; index++) if (history[index]!.role === 'user') turns++;
  return turns;
}

/** {@link countTurns} for a history that grows from call to call: only the new messages are looked at. */
export class TurnCounter {
  private readonly growth = new HistoryGrowth();
  private turns = 0;

  /** The turn number of `history`. */
  count(history: ReadonlyArray<ChatMessage>): number {
    const from = this.growth.observe(history);
    this.turns = (from === 0 ? 0 : this.turns) + countTurns(history, from);
    return this.turns;
  }
}
