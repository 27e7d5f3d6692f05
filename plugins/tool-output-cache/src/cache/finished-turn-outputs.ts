import type { ChatMessage } from '@ctxkit/core';
import { HistoryGrowth, type TurnCounter } from '@ctxkit/core/strategy-kit';

import type { CachedOutputs } from './cached-outputs';

/**
 * Caches the outputs of each finished turn (`onTurnComplete`) for the next payload: those appended since the history
 * seen last, or after the newest user message of a new history. Older ones are cached when a payload reaches them.
 */
export class FinishedTurnOutputs {
  private readonly seen = new HistoryGrowth();

  /** @param turns the strategy's turn counter (it checks the history's shape before counting) */
  constructor(
    private readonly outputs: CachedOutputs,
    private readonly turns: TurnCounter,
  ) {}

  async cache(newHistory: ReadonlyArray<ChatMessage>): Promise<void> {
    const turn = this.turns.count(newHistory);
    let from = this.seen.observe(newHistory);
    if (from === 0)
      for (let index = newHistory.length - 1; index > 0 && from === 0; index--)
        if (newHistory[index]!.role === 'user') from = index;
    for (let index = from; index < newHistory.length; index++) {
      const message = newHistory[index]!;
      if (message.role !== 'tool') continue;
      const ensured = this.outputs.ensure(message, turn);
      if (ensured instanceof Promise) await ensured;
    }
  }
}
