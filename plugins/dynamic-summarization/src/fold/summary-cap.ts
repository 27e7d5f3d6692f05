import { memoryAllowance } from '@ctxkit/core/strategy-kit';

import { SUMMARY_WRAPPER_TOKENS } from '../summary-block';

/** The smallest cap a summary is given (a smaller one carries nothing useful). */
export const MIN_SUMMARY_TOKENS = 64;

/** The room at the last composition and the summary's share of it. */
export interface ComposedRoom {
  /** Tokens left for memory and history after the system prompt, tools and dynamic context. */
  room: number;
  /** Tokens the summary block may take in that room. */
  allowance: number;
}

/**
 * The most tokens a summary may have: `summaryMaxTokens` when configured, else the summary's share
 * of the room at the last composition (or of the whole budget before any), less its wrapper, so
 * that it fits beside the newest history; never below {@link MIN_SUMMARY_TOKENS}.
 */
export function summaryCap(options: {
  summaryMaxTokens: number | null;
  memoryShare: number;
  available: number;
  room: ComposedRoom | undefined;
}): number {
  if (options.summaryMaxTokens !== null) return options.summaryMaxTokens;
  const allowance = options.room?.allowance ?? memoryAllowance(options.available, options.memoryShare);
  return Math.max(MIN_SUMMARY_TOKENS, allowance - SUMMARY_WRAPPER_TOKENS);
}

/**
 * Tokens a summarizer is asked to stay within: the previous summary plus half of the new turns (at
 * least 128), so that the summary grows towards its share of the budget fold by fold; never more than
 * the cap (where the summarizer re-folds instead of growing), and always less than what it replaces
 * (the inflation check would reject it).
 */
export function summaryTargetTokens(cap: number, previousSummaryTokens: number, batchTokens: number): number {
  const replaced = previousSummaryTokens + batchTokens;
  return Math.max(1, Math.min(cap, replaced - 1, Math.max(128, previousSummaryTokens + Math.floor(batchTokens / 2))));
}
