import type { ChatMessage, StrategyContext } from '@ctxkit/core';

import { startsWithPrefix } from './compaction-state';
import type { Compactor, CompactorSnapshot } from './compactor';
import { readTranscript } from './transcript';

/**
 * Undoes a compaction: returns the transcript saved before it, the history to continue with, and restores what the
 * compactor knew then.
 * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is gone; nothing is restored then
 */
export async function undoCompaction(
  compactor: Compactor,
  saved: { transcriptRef: string; compactor: CompactorSnapshot },
  owner: Pick<StrategyContext, 'store' | 'agentId' | 'sessionId'>,
): Promise<ChatMessage[]> {
  const history = await readTranscript(owner.store, owner, saved.transcriptRef);
  const previous = saved.compactor.state;
  // The caller's messages the restored compaction had replaced: the start of the history undone to, or of the
  // compaction's own transcript when the caller had adopted the compacted history.
  let covered: ChatMessage[] | undefined;
  if (previous && !startsWithPrefix(history, previous.prefix)) covered = history.slice(0, previous.keepFrom);
  else if (previous)
    covered = await readTranscript(owner.store, owner, previous.transcriptRef).then(
      (transcript) => transcript.slice(0, previous.keepFrom),
      // Without it only the adopted form maps onto the compaction; a full history sets it aside.
      () => [],
    );
  compactor.restore(saved.compactor, covered, history.length);
  return history;
}
