/**
 * Configuration of the tool output cache. Defaults live in `plugin.json`'s
 * `configSchema`; {@link resolveToolOutputCacheConfig} applies the same defaults when the strategy is
 * built without the loader (tests, benchmarks).
 * @see docs/strategies/tool-output-cache.md
 */
export interface ToolOutputCacheConfig {
  /**
   * Cache tool outputs, show in-context views, trim old outputs to placeholders.
   * @default true
   */
  enabled?: boolean;
  /**
   * Token budget for all tool outputs in the payload. `null`: derived from the model's context
   * window, `clamp(window × 0.25, 20 000, 60 000)`.
   * @default null
   */
  contextBudgetTokens?: number | null;
  /**
   * Largest in-context view of one tool output, in UTF-8 bytes (the note included).
   * @default 51200 (50 KiB)
   */
  maxMessageBytes?: number;
  /**
   * Longest line of an in-context view, in characters; longer lines are cut with a marker.
   * @default 2000
   */
  maxLineLength?: number;
}

/** {@link ToolOutputCacheConfig} with every default applied. */
export interface ResolvedToolOutputCacheConfig {
  enabled: boolean;
  contextBudgetTokens: number | null;
  maxMessageBytes: number;
  maxLineLength: number;
}

/** Defaults of {@link ToolOutputCacheConfig}. */
export const TOOL_OUTPUT_CACHE_DEFAULTS: Readonly<ResolvedToolOutputCacheConfig> = Object.freeze({
  enabled: true,
  contextBudgetTokens: null,
  maxMessageBytes: 50 * 1024,
  maxLineLength: 2000,
});

/** Lower and upper bound of the derived tool output budget, and the share of the window. */
export const TOOL_OUTPUT_BUDGET_BOUNDS = Object.freeze({ share: 0.25, min: 20_000, max: 60_000 });

/** Applies the defaults of {@link ToolOutputCacheConfig} to a partial config (never mutates it). */
export function resolveToolOutputCacheConfig(config: ToolOutputCacheConfig | undefined): ResolvedToolOutputCacheConfig {
  return {
    enabled: config?.enabled ?? TOOL_OUTPUT_CACHE_DEFAULTS.enabled,
    contextBudgetTokens: config?.contextBudgetTokens ?? TOOL_OUTPUT_CACHE_DEFAULTS.contextBudgetTokens,
    maxMessageBytes: config?.maxMessageBytes ?? TOOL_OUTPUT_CACHE_DEFAULTS.maxMessageBytes,
    maxLineLength: config?.maxLineLength ?? TOOL_OUTPUT_CACHE_DEFAULTS.maxLineLength,
  };
}

/**
 * The token budget of all tool outputs: `contextBudgetTokens` when set, else
 * `clamp(contextWindow × 0.25, 20 000, 60 000)`.
 */
export function toolOutputBudgetTokens(config: Pick<ResolvedToolOutputCacheConfig, 'contextBudgetTokens'>, contextWindow: number): number {
  if (config.contextBudgetTokens !== null && config.contextBudgetTokens !== undefined) return Math.max(0, Math.floor(config.contextBudgetTokens));
  const { share, min, max } = TOOL_OUTPUT_BUDGET_BOUNDS;
  return Math.min(max, Math.max(min, Math.floor(contextWindow * share)));
}
