/**
 * `std-tool-output-cache-strategy`: tool output cache, micro-compact and compaction. The plugin
 * entry exports `createStrategy`; the strategy class, its config types and the tool output cache
 * (for hosts and benchmarks that cache outside a strategy) are exported too.
 * @see docs/strategies/tool-output-cache.md
 */
import { defineStrategy } from '@ctxkit/core';
import { ToolOutputCacheStrategy } from './tool-output-cache-strategy';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

/**
 * The plugin factory (what the loader calls, and direct callers too): builds the strategy for one
 * agent and session from the validated config.
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when the model is not registered and no `maxContextTokens` is set
 */
export const createStrategy = defineStrategy<ToolOutputCacheStrategyConfig>((config, context) => new ToolOutputCacheStrategy(config, context));

// the strategy and its config
export { TOOL_OUTPUT_CACHE_STRATEGY_ID, ToolOutputCacheStrategy } from './tool-output-cache-strategy';
export type { CompactionTrigger } from './tool-output-cache-strategy';
export type { CompactionState } from './compaction/compaction-state';
export type { ResolvedToolOutputCacheStrategyConfig, ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
export type { ResolvedToolOutputCacheConfig, ToolOutputCacheConfig } from './cache/tool-output-cache-config';
export type { MicroCompactConfig, ResolvedMicroCompactConfig } from './view/micro-compact';
export type { CompactionConfig, ResolvedCompactionConfig } from './compaction/compaction-config';

// undo: the error of a compaction whose saved transcript is gone
export { TranscriptMissingError } from './compaction/transcript-missing-error';

// the tool output cache (`strategy.cache`, benchmarks)
export { ToolOutputCache } from './cache/tool-output-cache';
export type { CachedToolOutput, FailedToolOutputWrite, GrepToolOutputOptions, ReadToolOutputOptions, ToolOutputCacheOptions } from './cache/tool-output-cache';
export type { InContextView, InContextViewLimits } from './cache/in-context-view';
export { cacheToolOutputView } from './cache/cache-tool-output-view';
