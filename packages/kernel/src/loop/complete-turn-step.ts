import { type ChatMessage, hasWhenIdle, type IContextManager } from '@ctxkit/core';

/**
 * Last step of a run: tells the context manager the turn is over, with the whole history (a
 * copy), so that it can start background work (summaries, extraction).
 * @param waitForIdle also wait for that background work (`whenIdle`), when the strategy offers it
 */
export async function completeTurnStep(
  manager: IContextManager,
  history: readonly ChatMessage[],
  waitForIdle: boolean,
): Promise<void> {
  await manager.onTurnComplete(history.slice());
  if (waitForIdle && hasWhenIdle(manager)) await manager.whenIdle();
}
