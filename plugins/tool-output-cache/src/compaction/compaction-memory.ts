import { type ChatMessage, type ITokenCounter, providerCompactionText } from '@ctxkit/core';
import {
  contentText,
  escapeMemoryText,
  type MemoryBlock,
  memoryBlockText,
  memoryPreamble,
  type MemoryRole,
  truncateToFit,
} from '@ctxkit/core/strategy-kit';

import type { CompactionState } from './history-layout';

/** The tag a compaction's retain + summary is framed in. */
const COMPACTION_SUMMARY_TAG = 'compaction_summary';

/** Tags the retain + summary may not open or close. */
const COMPACTION_FRAME_TAGS = [COMPACTION_SUMMARY_TAG, 'summary', 'retain'];

/** What a user-role compaction block says before its frame. */
export const COMPACTION_PREAMBLE = memoryPreamble(
  'A summary written when the earlier conversation was compacted follows, in its place.',
);

/** The reason every message a compaction replaced is reported with. */
export function compactionReason(state: Pick<CompactionState, 'count'>): string {
  return `replaced by the retain + summary of compaction ${state.count}`;
}

/**
 * The retain + summary of a compaction as the payload's memory block, framed in `<compaction_summary>` with
 * its text escaped so that it cannot close the frame or open a role. It stands for the caller's history
 * before `until`, recoverable from the saved transcript.
 */
export function compactionMemory(
  state: Pick<CompactionState, 'count' | 'transcriptRef'>,
  memory: ReadonlyArray<ChatMessage>,
  until: number,
  counter: ITokenCounter,
  role: MemoryRole = 'user',
): MemoryBlock {
  const text = memory.map((message) => escapeMemoryText(memoryText(message), COMPACTION_FRAME_TAGS)).join('\n\n');
  const framed = (body: string) =>
    memoryBlockText(role, COMPACTION_PREAMBLE, `<${COMPACTION_SUMMARY_TAG}>\n${body}\n</${COMPACTION_SUMMARY_TAG}>`);
  return {
    name: 'compaction summary',
    role,
    content: framed(text),
    // Shortened inside its frame: the head of the retain + summary, the frame closed after it.
    shrink: (maxTokens) => {
      const room = maxTokens - counter.count(framed(''));
      return room > 0 ? framed(truncateToFit(text, { kind: 'head', maxTokens: room, counter }).text) : undefined;
    },
    placement: 'after-system',
    covers: {
      until,
      action: 'compacted',
      recoverableFrom: 'transcript',
      reason: compactionReason(state),
      refs: [state.transcriptRef],
    },
  };
}

/** A memory message's text: its content, or a provider compaction item's readable summary. */
function memoryText(message: Readonly<ChatMessage>): string {
  const item =
    message.role === 'assistant'
      ? message.reasoning?.find((candidate) => candidate.data.type === 'compaction')
      : undefined;
  if (!item) return contentText(message.content);
  return (
    providerCompactionText(item) ??
    '(The earlier conversation was compacted by the provider; its summary is encrypted and cannot be shown here.)'
  );
}
