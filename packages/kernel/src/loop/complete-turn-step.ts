import { hasWhenIdle } from '@ctxkit/core';
import type { RunState } from './run-state';

/**
 * Last step of a run: tells the context manager the turn is over, with the whole history (a
 * copy), so that it can start background work (summaries, extraction).
 * @param waitForIdle also wait for that background work (`whenIdle`), when the strategy offers it
 */
export async function completeTurnStep(state: RunState, waitForIdle: boolean): Promise<void> {
  await state.manager.onTurnComplete(state.history.slice());
  if (waitForIdle && hasWhenIdle(state.manager)) await state.manager.whenIdle();
}
