/**
 * `std-tool-output-cache-strategy`: tool output cache, micro-compact and compaction. The plugin
 * entry exports `createStrategy`; the building blocks are exported for hosts, benchmarks and other
 * strategies.
 * @see docs/strategies/tool-output-cache.md
 */
import { defineStrategy } from '@ctxkit/core';
import { ToolOutputCacheStrategy } from './tool-output-cache-strategy';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

/**
 * The plugin factory: builds the strategy for one agent and session from the validated config.
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when the model is not registered and no `maxContextTokens` is set
 */
export const createStrategy = defineStrategy<ToolOutputCacheStrategyConfig>((config, context) => new ToolOutputCacheStrategy(config, context));

/** Same factory under a descriptive name. */
export const createToolOutputCacheStrategy = createStrategy;

export { TOOL_OUTPUT_CACHE_STRATEGY_ID, ToolOutputCacheStrategy } from './tool-output-cache-strategy';
export type { CompactionTrigger } from './tool-output-cache-strategy';
export type { ResolvedToolOutputCacheStrategyConfig, ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
export { resolveToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
export type { ResolvedToolOutputCacheConfig, ToolOutputCacheConfig } from './tool-output-cache-config';
export { resolveToolOutputCacheConfig, TOOL_OUTPUT_BUDGET_BOUNDS, TOOL_OUTPUT_CACHE_DEFAULTS, toolOutputBudgetTokens } from './tool-output-cache-config';
export type { CompactionConfig, ResolvedCompactionConfig } from './compaction-config';
export { COMPACTION_DEFAULTS, DEFAULT_RETAIN_PROMPT, DEFAULT_SUMMARY_PROMPT, resolveCompactionConfig } from './compaction-config';
export type { MicroCompactConfig, ResolvedMicroCompactConfig } from './micro-compact';
export { MICRO_COMPACT_DEFAULTS, microCompact, microCompactPlaceholder, resolveMicroCompactConfig } from './micro-compact';

// tool output cache
export type { CachedToolOutput, GrepToolOutputOptions, ReadToolOutputOptions, ToolOutputCacheOptions } from './tool-output-cache';
export { GREP_DEFAULT_MAX_MATCHES, GREP_MAX_MATCHES, READ_DEFAULT_LIMIT, ToolOutputCache } from './tool-output-cache';
export type { InContextView, InContextViewLimits } from './in-context-view';
export { buildInContextView } from './in-context-view';
export { cacheToolOutputView } from './cache-tool-output-view';
export type { ToolOutputDigest } from './tool-output-ref-id';
export { assertToolOutputRefId, digestToolOutput, isToolOutputRefId, TOOL_OUTPUT_REF_ID_PATTERN } from './tool-output-ref-id';
export { isTrimmed, trimmedPlaceholder, trimToolOutputs } from './trim-tool-outputs';
export type { TrimToolOutputsOptions } from './trim-tool-outputs';
export {
  COMPACT_DEFINITION,
  COMPACT_TOOL,
  createCacheTools,
  createCompactTool,
  TOOL_OUTPUT_CACHE_DEFINITION,
  TOOL_OUTPUT_CACHE_GREP_DEFINITION,
  TOOL_OUTPUT_CACHE_GREP_TOOL,
  TOOL_OUTPUT_CACHE_TOOL,
} from './cache-tools';
export { ToolArgumentsError } from './tool-arguments-error';
export type { StreamedLine } from './stream-lines';
export { streamLines } from './stream-lines';

// compaction
export { compactionThreshold, shouldCompact } from './should-compact';
export { resolveContextLimit } from './context-limit';
export { stripTrailingToolCalls } from './strip-trailing-tool-calls';
export { buildCompactionInterrupt } from './compaction-prompt';
export type { CompactionReply } from './parse-compaction-reply';
export { extractFinalTagBlock, parseCompactionReply } from './parse-compaction-reply';
export type { CompactMessagesOptions, CompactMessagesResult } from './compact-messages';
export { buildCompactionRequest, compactMessages } from './compact-messages';
export type { SavedTranscript } from './save-transcript';
export { saveTranscript } from './save-transcript';
export type { CompactionState } from './compaction-state';
