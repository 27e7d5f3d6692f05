import type { ChatMessage, ITokenCounter, ToolDefinition } from '@ctxkit/core';

/**
 * What a {@link Summarizer} folds: the current summary and a batch of whole turns of history.
 * @see docs/strategies/dynamic-summarization.md
 */
export interface SummarizerInput {
  /** The summary so far (`null` before the first one). Folded into the new summary. */
  previousSummary: string | null;
  /** The turns to fold, oldest first (whole turns: tool-call groups are never split). Never mutated. */
  messages: ReadonlyArray<Readonly<ChatMessage>>;
  /** History index of `messages[0]`, so that summaries can name message numbers. */
  firstIndex: number;
  /** The summary must not exceed this many tokens (counted with `counter`). */
  maxTokens: number;
  /** Counter of the agent's model (the summary is sent with the agent's payload). */
  counter: ITokenCounter;
  /** Aborted when the strategy is disposed, re-synchronised or the attempt times out. */
  signal?: AbortSignal;
  /**
   * The conversation's `cacheKey`, given when every message of `messages` was in the last request
   * the agent's model received: the summary request may then go out as that request continued, with
   * an instruction that names the messages instead of restating them (`LLMCompletionRequest.continuation`).
   */
  cacheKey?: string;
  /**
   * The last request a model received, when `messages` were all in it: its messages before them and
   * its tools, so that a provider compaction of the fold starts as that request did. `lead` holds the
   * request's system messages, and its summary block when `leadHasSummary` (the request sent
   * `previousSummary` whole, right before `messages`).
   */
  conversation?: { lead: ChatMessage[]; tools: ToolDefinition[]; leadHasSummary: boolean };
}

/**
 * Internal contract of the two summarizers: the LLM summarizer and the offline extractive
 * summarizer (no LLM). Both fold `previousSummary` + `messages` into a new summary text.
 *
 * Implementations throw a `CtxkitError` (`CTXKIT_LLM_*`) when no usable summary came back; the
 * strategy then keeps the turns verbatim.
 */
export interface Summarizer {
  /** Shown in events, `stats.extra` and reports. */
  readonly name: string;
  /** The model asked, or `'none'` for the offline summarizer. */
  readonly model: string;
  /** True when no language model is involved. */
  readonly offline: boolean;
  summarize(input: SummarizerInput): Promise<string>;
  /** What the last summary it wrote covers, kept and left out (summarizers that check their summaries). */
  readonly lastReceipt?: SummaryReceipt;
}

/** What a checked summary covers, kept, dropped and claims without support: in `stats.extra.summaryReceipt`. */
export interface SummaryReceipt {
  /** History indexes `[from, to)` of the turns it folded. */
  covers: { from: number; to: number };
  /** The identifiers and `<retain>` texts of those turns it had to keep, all present. */
  kept: string[];
  /** Items asked for in the first answer that it left out (then put back on the re-prompt). */
  putBack: string[];
  /**
   * Ids, dates, URLs, paths, code spans and numbers of those turns it does not carry and was not
   * required to (past the required ones, or in tool outputs): they stay in the history. At most 40.
   */
  dropped: string[];
  /**
   * What the summary claims that neither the folded turns nor the previous summary support: ids,
   * dates, URLs, paths, code spans and numbers of three digits or more that appear in neither, and
   * sentences stating a constraint (must, never, only, at most, prefers…) with a word that appears in
   * neither. The summary is kept; these are the claims to check. At most 40.
   */
  unsupported: string[];
  /** Tokens of the folded turns and of the summary that replaces them. */
  tokens: { folded: number; summary: number };
  /** The script the conversation and the summary are written in, when there was enough text to tell. */
  script: string | undefined;
  /** True when the first answer failed the check and the model was asked once more. */
  reprompted: boolean;
}
