import type { TurnIndex } from '@ctxkit/core/strategy-kit';

/**
 * History index where the last `recentTurns` turns start (a turn starts at a user message); 0 when there are not more
 * turns than that.
 */
export function recentTurnsStart(turns: TurnIndex, recentTurns: number): number {
  return recentTurns > 0 && turns.turns > recentTurns ? turns.turnStart(turns.turns - recentTurns)! : 0;
}
