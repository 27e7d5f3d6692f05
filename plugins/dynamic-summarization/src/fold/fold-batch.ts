import type { ChatMessage } from '@ctxkit/core';

import { historyFingerprint } from '../history/history-fingerprint';

/**
 * Whether a fold is due: more than `threshold` unsummarized turns, or (with at least two, so that
 * one can stay verbatim) an unsummarized history that no longer fits the room the summary leaves it,
 * so that what leaves the window is in the summary. `outgrowsRoom` is asked only in the second case.
 */
export function foldIsDue(unsummarizedTurns: number, threshold: number, outgrowsRoom: () => boolean): boolean {
  return unsummarizedTurns > threshold || (unsummarizedTurns > 1 && outgrowsRoom());
}

/**
 * End (exclusive history index) of the batch a fold takes: the unsummarized history up to the start
 * of its turn `min(batchTurns, turns − 1)`, i.e. whole turns only (a turn starts at a user message,
 * so no tool-call group is split) and never the newest turn.
 * @param starts indexes of the user messages from the first unsummarized message on (at least two)
 */
export function foldBatchEnd(starts: readonly number[], batchTurns: number): number {
  return starts[Math.min(batchTurns, starts.length - 1)]!;
}

/**
 * Identity of a batch, for the failure back-off: the summary version it would fold into and the
 * fingerprint of its messages. The same key means the same work; a new one lifts a stop.
 */
export function foldBatchKey(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  covered: number,
  end: number,
  version: number,
): string {
  return `${version}/${historyFingerprint(history, covered, end)}`;
}
