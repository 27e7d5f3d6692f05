import { type ITokenCounter } from '@ctxkit/core';
import {
  escapeMemoryText,
  type MemoryBlock,
  memoryBlockText,
  memoryPreamble,
  type MemoryRole,
  truncateToFit,
} from '@ctxkit/core/strategy-kit';

import type { SummaryState } from './summary-state';

/** Tokens of the summary block's wrapper (the preamble, the tag lines and the heading around the summary text). */
export const SUMMARY_WRAPPER_TOKENS = 80;

/** The tag the summary is framed in. */
export const SUMMARY_TAG = 'conversation_summary';

/** Tags the summary's text may not open or close: its frame's, and those the summarizer's prompt and reply use. */
const SUMMARY_FRAME_TAGS = [SUMMARY_TAG, 'summary', 'previous_summary', 'transcript'];

/** What a user-role summary block says before its frame. */
export const SUMMARY_PREAMBLE = memoryPreamble(
  'A summary of the earlier conversation follows, written by the context manager.',
);

/**
 * The summary as a clearly delimited block, sent right after the system prompt (after the dynamic
 * context in a user message). The text is escaped so that it cannot close the frame or open a role.
 */
export function summaryBlock(state: SummaryState, text: string = state.text, role: MemoryRole = 'user'): string {
  return memoryBlockText(
    role,
    SUMMARY_PREAMBLE,
    `<${SUMMARY_TAG} covers_messages="0-${state.coveredMessages - 1}" turns="${state.coveredTurns}" ` +
      `version="${state.version}">\n` +
      `Summary of the earlier conversation (the newest part of it may also follow verbatim):\n` +
      `${escapeMemoryText(text, SUMMARY_FRAME_TAGS)}\n</${SUMMARY_TAG}>`,
  );
}

/**
 * The summary as the composer's memory block: in a `role` message (user unless `memoryRole` says
 * system) right after the system prompt, shortened from its head when it does not fit its share, left
 * out when the window already holds every message it covers; the history older than the window that
 * it covers is reported as `summarized`. Build it once per summary: it keeps its last shortened form
 * for the next composition.
 */
export function summaryMemoryBlock(
  state: SummaryState,
  counter: ITokenCounter,
  role: MemoryRole = 'user',
): MemoryBlock {
  // The room left to the summary rarely changes from one turn to the next: the last cut is reused.
  let lastCut: { maxTokens: number; text: string | undefined } | undefined;
  const block: SummaryMemoryBlock = {
    state,
    holds: (earlier) =>
      isSummaryBlock(earlier) &&
      earlier.state.version < state.version &&
      earlier.state.coveredMessages <= state.coveredMessages,
    name: 'summary',
    role,
    content: summaryBlock(state, state.text, role),
    shrink: (maxTokens) => {
      if (lastCut?.maxTokens === maxTokens) return lastCut.text;
      const room = maxTokens - counter.count(summaryBlock(state, '', role));
      const text =
        room > 0
          ? summaryBlock(state, truncateToFit(state.text, { kind: 'head', maxTokens: room, counter }).text, role)
          : undefined;
      lastCut = { maxTokens, text };
      return text;
    },
    placement: 'after-system',
    omitWhenWindowCovers: true,
    yieldsToRecall: true,
    covers: {
      until: state.coveredMessages,
      action: 'summarized',
      recoverableFrom: 'summary',
      reason: `folded into summary v${state.version}`,
      refs: [`summary:${state.version}`],
    },
  };
  return block;
}

/** The summary block with the summary it shows. */
interface SummaryMemoryBlock extends MemoryBlock {
  readonly state: SummaryState;
}

function isSummaryBlock(block: MemoryBlock): block is SummaryMemoryBlock {
  const state = (block as Partial<SummaryMemoryBlock>).state;
  return typeof state === 'object' && state !== null && typeof state.version === 'number';
}
