import type { ChatMessage, StrategyContext } from '@ctxkit/core';

import { type SavedCompactionState, startsWithPrefix } from './compaction-state';
import type { Compactor, CompactorSnapshot } from './compactor';
import { readTranscript } from './transcript';

type TranscriptOwner = Pick<StrategyContext, 'store' | 'agentId' | 'sessionId'>;

/**
 * Undoes a compaction: returns the transcript saved before it, the history to continue with, and restores
 * what the compactor knew then.
 * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is gone; nothing is restored then
 */
export async function undoCompaction(
  compactor: Compactor,
  saved: { transcriptRef: string; compactor: CompactorSnapshot },
  owner: TranscriptOwner,
): Promise<ChatMessage[]> {
  const history = await readTranscript(owner.store, owner, saved.transcriptRef);
  const previous = saved.compactor.state;
  compactor.restore(saved.compactor, previous ? await coveredBy(previous, history, owner) : undefined, history.length);
  return history;
}

/**
 * The caller's messages a restored compaction had replaced: the start of the history undone to, or of
 * the compaction's own transcript when the caller had adopted the compacted history.
 */
async function coveredBy(
  previous: SavedCompactionState,
  history: ReadonlyArray<ChatMessage>,
  owner: TranscriptOwner,
): Promise<ChatMessage[]> {
  if (!startsWithPrefix(history, previous.prefix)) return history.slice(0, previous.keepFrom);
  try {
    return (await readTranscript(owner.store, owner, previous.transcriptRef)).slice(0, previous.keepFrom);
  } catch {
    // Without it only the adopted form maps onto the compaction; a full history sets it aside.
    return [];
  }
}
