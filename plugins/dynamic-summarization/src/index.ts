/**
 * `std-summarization-strategy`: dynamic summarization, with an LLM
 * summarizer and the offline extractive summarizer (no LLM). Explicit named exports only.
 * @see docs/strategies/dynamic-summarization.md
 */
export { createStrategy } from './create-summarization-strategy';
export type { FoldBackoffState } from './fold/fold-backoff';
export type { FoldClaim } from './fold/fold-claim';
export { escapeReservedTags } from './llm/fence-transcript';
export type { LLMSummarizerOptions } from './llm/llm-summarizer';
export { LLMSummarizer } from './llm/llm-summarizer';
export { parseSummaryReply } from './llm/parse-summary-reply';
export { DEFAULT_SUMMARY_PROMPT } from './llm/summary-prompt';
export { OFFLINE_SUMMARIZER_NAME, OfflineSummarizer } from './offline/offline-summarizer';
export { SUMMARIZATION_STRATEGY_ID } from './strategy-id';
export type { SummarizationConfig, SummarizerChoice } from './summarization-config';
export { resolveSummarizationConfig, SUMMARIZATION_DEFAULTS } from './summarization-config';
export type { SummarizationStrategyOptions } from './summarization-strategy';
export { SummarizationStrategy } from './summarization-strategy';
export type { Summarizer, SummarizerInput } from './summarizer';
export type { SummaryRecord, SummaryState } from './summary-state';
export { summaryStateKey } from './summary-state';
