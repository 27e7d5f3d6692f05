import { resolveCompactionConfig, type CompactionConfig, type ResolvedCompactionConfig } from './compaction/compaction-config';
import { resolveMicroCompactConfig, type MicroCompactConfig, type ResolvedMicroCompactConfig } from './view/micro-compact';
import { resolveToolOutputCacheConfig, type ResolvedToolOutputCacheConfig, type ToolOutputCacheConfig } from './cache/tool-output-cache-config';

/**
 * The config of `std-tool-output-cache-strategy` (the `config` of an agent's `contextStrategy`).
 * Validated against `plugin.json`'s `configSchema`, which holds the defaults.
 * @see docs/strategies/tool-output-cache.md
 */
export interface ToolOutputCacheStrategyConfig {
  /** Model for counting and the registry's window; the agent's model when absent. */
  model?: string;
  /**
   * The payload's hard ceiling, overriding the model's window.
   * @default null (the model's context window)
   */
  maxContextTokens?: number | null;
  /**
   * Tokens kept for the answer.
   * @default null (min(4096, ceiling / 8))
   */
  reserveOutputTokens?: number | null;
  /**
   * Share of the ceiling kept free.
   * @default 0.1
   */
  safetyMarginRatio?: number;
  toolOutputCache?: ToolOutputCacheConfig;
  microCompact?: MicroCompactConfig;
  compaction?: CompactionConfig;
}

/** {@link ToolOutputCacheStrategyConfig} with every default applied. */
export interface ResolvedToolOutputCacheStrategyConfig {
  model: string | undefined;
  maxContextTokens: number | null;
  reserveOutputTokens: number | null;
  safetyMarginRatio: number;
  toolOutputCache: ResolvedToolOutputCacheConfig;
  microCompact: ResolvedMicroCompactConfig;
  compaction: ResolvedCompactionConfig;
}

/** Applies every default (the same ones as `plugin.json`), never mutating the input. */
export function resolveToolOutputCacheStrategyConfig(config: ToolOutputCacheStrategyConfig | undefined): ResolvedToolOutputCacheStrategyConfig {
  return {
    model: config?.model,
    maxContextTokens: config?.maxContextTokens ?? null,
    reserveOutputTokens: config?.reserveOutputTokens ?? null,
    safetyMarginRatio: config?.safetyMarginRatio ?? 0.1,
    toolOutputCache: resolveToolOutputCacheConfig(config?.toolOutputCache),
    microCompact: resolveMicroCompactConfig(config?.microCompact),
    compaction: resolveCompactionConfig(config?.compaction),
  };
}
