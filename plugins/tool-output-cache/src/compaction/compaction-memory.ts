import { type ChatMessage } from '@ctxkit/core';
import { contentText, type MemoryBlock } from '@ctxkit/core/strategy-kit';
import type { CompactionState } from './compaction-state';

/** The reason every message a compaction replaced is reported with. */
export function compactionReason(state: Pick<CompactionState, 'count'>): string {
  return `replaced by the retain + summary of compaction ${state.count}`;
}

/**
 * The retain + summary of a compaction as the payload's memory block, right after the system prompt.
 * It stands for the caller's history before `until` (reported as `compacted`, recoverable from the
 * saved transcript); the composer gives it up to its share of the room and leaves it out before the
 * current turn would lose its room.
 */
export function compactionMemory(state: Pick<CompactionState, 'count' | 'transcriptRef'>, memory: ReadonlyArray<ChatMessage>, until: number): MemoryBlock {
  return {
    name: 'compaction summary',
    content: memory.map((message) => contentText(message.content)).join('\n\n'),
    placement: 'after-system',
    covers: { until, action: 'compacted', recoverableFrom: 'transcript', reason: compactionReason(state), refs: [state.transcriptRef] },
  };
}
