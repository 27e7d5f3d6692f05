import { type ITokenCounter } from '@ctxkit/core';
import { truncateToFit, type MemoryBlock } from '@ctxkit/core/strategy-kit';
import { escapeReservedTags } from './llm/fence-transcript';
import type { SummaryState } from './summary-state';

/** Tokens of the summary block's wrapper (the tag line and the heading around the summary text). */
export const SUMMARY_WRAPPER_TOKENS = 48;

/** The summary as a clearly delimited block, sent right after the system prompt. */
export function summaryBlock(state: SummaryState, text: string = state.text): string {
  return (
    `<conversation_summary covers_messages="0-${state.coveredMessages - 1}" turns="${state.coveredTurns}" version="${state.version}">\n` +
    `Summary of the earlier conversation (the newest part of it may also follow verbatim):\n` +
    `${escapeReservedTags(text)}\n</conversation_summary>`
  );
}

/**
 * The summary as the composer's memory block: right after the system prompt, shortened from its
 * head when it does not fit its share, left out when the window already holds every message it
 * covers; the history older than the window that it covers is reported as `summarized`. Build it once
 * per summary: it keeps its last shortened form for the next composition.
 */
export function summaryMemoryBlock(state: SummaryState, counter: ITokenCounter): MemoryBlock {
  // The room left to the summary rarely changes from one turn to the next: the last cut is reused.
  let lastCut: { maxTokens: number; text: string | undefined } | undefined;
  const block: SummaryMemoryBlock = {
    state,
    holds: (earlier) => isSummaryBlock(earlier) && earlier.state.version < state.version && earlier.state.coveredMessages <= state.coveredMessages,
    name: 'summary',
    content: summaryBlock(state),
    shrink: (maxTokens) => {
      if (lastCut?.maxTokens === maxTokens) return lastCut.text;
      const room = maxTokens - counter.count(summaryBlock(state, ''));
      const text = room > 0 ? summaryBlock(state, truncateToFit(state.text, { kind: 'head', maxTokens: room, counter }).text) : undefined;
      lastCut = { maxTokens, text };
      return text;
    },
    placement: 'after-system',
    omitWhenWindowCovers: true,
    yieldsToRecall: true,
    covers: { until: state.coveredMessages, action: 'summarized', recoverableFrom: 'summary', reason: `folded into summary v${state.version}`, refs: [`summary:${state.version}`] },
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
