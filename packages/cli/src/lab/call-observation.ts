import type { SectionTokens, UsageLevel } from '@ctxkit/core';

/** What the lab saw at one model call of a replayed conversation. */
export interface CallObservation {
  recordId: string;
  /** 0-based index of the call within the conversation. */
  call: number;
  /** History messages given to the strategy. */
  historyLength: number;
  /** Tokens of the payload, counted by the lab's counter. */
  sentTokens: number;
  /** Tokens of sending everything (system + tools + whole history). */
  everythingTokens: number;
  /** The context window the payload was composed for. */
  window: number;
  /** Tokens the payload may use (its budget). */
  budget: number;
  dropped: number;
  summarized: number;
  trimmed: number;
  compacted: number;
  /** Provider-validity problems found in the payload (orphans, dangling calls, ...). */
  problems: string[];
  overBudget: boolean;
  milliseconds: number;
  usageLevel: UsageLevel;
  sections: SectionTokens;
  /** Tokens the strategy may use for this payload (`stats.budget.available`); 0 when the call threw. */
  available: number;
  /**
   * True when the strategy reduced the history for this payload (any reduction: drop, trim, summary, compaction,
   * extraction).
   */
  reduced: boolean;
  /**
   * Facts needed at this call (see `neededFacts`), how many the payload holds, and how many of the others it names a
   * cache ref for.
   */
  factsActive: number;
  factsPresent: number;
  factsRecoverable: number;
  /**
   * Tokens of this payload that repeat the previous payload's start (tools, then whole leading
   * messages): what a provider's prompt cache can serve. 0 for the first call and rejected calls.
   */
  repeatedPrefixTokens: number;
  /** True when the whole history (with system prompt and tools) fits the budget at this call. */
  fitsWhole: boolean;
  /**
   * The receipt of the summary this payload carries (`stats.extra.summaryReceipt`): the history range it
   * covers, how many items it kept and dropped, and whether it was re-prompted.
   */
  summaryReceipt?: { from: number; to: number; kept: number; dropped: number; reprompted: boolean };
  /**
   * The session's pins at this call (with a known text) and how many of them the payload holds verbatim; absent when
   * pins are not checked.
   */
  pins?: { active: number; kept: number };
  /** Set when composePayload rejected; the call then sent nothing. */
  error?: { code: string; message: string };
}
