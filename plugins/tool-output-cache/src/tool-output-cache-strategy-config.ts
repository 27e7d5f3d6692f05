import { applyConfigSchema, type MemoryRole } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';
import type { ToolOutputCacheConfig } from './cache/tool-output-cache-config';
import type { CompactionConfig } from './compaction/compaction-config';
import { TOOL_OUTPUT_CACHE_STRATEGY_ID } from './strategy-id';
import type { MicroCompactConfig } from './view/micro-compact-config';

/**
 * The config once validated against `plugin.json`'s `configSchema`, the one source of its defaults and of what is
 * valid (the `@default`s document them; a unit test keeps these fields and the schema's in step).
 * @see docs/strategies/tool-output-cache.md
 */
export interface ResolvedToolOutputCacheStrategyConfig {
  /** Model for counting and the registry's window; the agent's model when absent. */
  model?: string;
  /** The payload's hard ceiling, overriding the model's window. @default null (the model's window) */
  maxContextTokens: number | null;
  /** Tokens kept for the answer. @default null (min(4096, ceiling / 8)) */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. @default 0.1 */
  safetyMarginRatio: number;
  /**
   * When the payload no longer fits, make room down to this share of it in one go (older outputs replaced, the
   * window cut back), so that the next calls only append. 1 makes only the room needed, on every call.
   * @default 1
   */
  cutBackRatio: number;
  /**
   * With `cutBackRatio` below 1: share of the room that keeps the conversation's first messages, their outputs
   * whole, in front of the window when the history is cut. 0 keeps none.
   * @default 0
   */
  keepFirstShare: number;
  /**
   * Where a compaction's retain + summary is sent: `user`, a user message framed as a quoted record of the earlier
   * conversation; `system`, a system message right after the system prompt, with its authority.
   * @default 'user'
   */
  memoryRole: MemoryRole;
  /**
   * Tokens that replacing or micro-compacting older outputs ahead of need must reclaim together before it is done:
   * each such change makes the provider's prompt cache miss the payload from that output on, so a few larger
   * changes keep more of it cached. Replacements the payload needs to fit are made at once; 0 makes each when due.
   * @default 2000
   */
  minReclaimTokens: number;
  /** The tool output cache: in-context views, refs and the token budget of all tool outputs. */
  toolOutputCache: ToolOutputCacheConfig;
  /** Old tool results replaced by `[Previous: used {tool_name}]` (with `; ref=…` for a cached output). */
  microCompact: MicroCompactConfig;
  /** Compaction to retain + summary + the last turns, the transcript saved first. */
  compaction: CompactionConfig;
}

/** The sections of the config: objects whose fields may each be left out. */
type ConfigSection = 'toolOutputCache' | 'microCompact' | 'compaction';

/**
 * The config as written (an agent's `contextStrategy.config`, or what a direct caller passes to `createStrategy`):
 * every field may be left out, in each section too; the schema fills in the defaults.
 * @see docs/strategies/tool-output-cache.md
 */
export type ToolOutputCacheStrategyConfig = Partial<Omit<ResolvedToolOutputCacheStrategyConfig, ConfigSection>> & {
  [Section in ConfigSection]?: Partial<ResolvedToolOutputCacheStrategyConfig[Section]>;
};

/**
 * Validates a config against the plugin's `configSchema` as the loader does and returns a copy with its defaults
 * applied; never touches its argument. `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveToolOutputCacheStrategyConfig(
  config: ToolOutputCacheStrategyConfig | undefined | null,
): ResolvedToolOutputCacheStrategyConfig {
  return applyConfigSchema(
    TOOL_OUTPUT_CACHE_STRATEGY_ID,
    manifest.configSchema,
    config ?? {},
  ) as unknown as ResolvedToolOutputCacheStrategyConfig;
}
