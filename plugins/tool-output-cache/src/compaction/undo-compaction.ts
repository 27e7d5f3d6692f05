import type { ChatMessage, StrategyContext } from '@ctxkit/core';

import { startsWithPrefix } from './compaction-state';
import type { Compactor, CompactorSnapshot } from './compactor';
import { readTranscript } from './transcript';

/**
 * Undoes a compaction: restores what the compactor knew before it, returns its transcript (the history to go on with).
 * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is gone; nothing is restored then
 */
export async function undoCompaction(
  compactor: Compactor,
  saved: { transcriptRef: string; compactor: CompactorSnapshot },
  owner: Pick<StrategyContext, 'store' | 'agentId' | 'sessionId'>,
): Promise<ChatMessage[]> {
  const history = await readTranscript(owner.store, owner, saved.transcriptRef);
  const previous = saved.compactor.state;
  // What the restored compaction replaced: the start of this history, or of its own transcript once adopted.
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
