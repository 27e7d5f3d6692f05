import { applyConfigSchema } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';

/**
 * Config of the sliding window (`std-sliding-window-strategy`). The plugin's `plugin.json`
 * `configSchema` is the one source of the defaults and of what is valid: the loader applies it, and
 * {@link resolveSlidingWindowConfig} applies the same schema for direct callers. A unit test keeps the
 * keys of this type and the schema's properties equal.
 */
export interface SlidingWindowConfig {
  /**
   * Model for counting (its encoding) and, when `maxContextTokens` is null, for the context window
   * from the model registry (strict: an unknown model is `CTXKIT_UNKNOWN_MODEL`).
   * @default "gpt-4o"
   */
  model: string;
  /**
   * Hard ceiling of the payload plus the output reservation; overrides the model's window.
   * @default null
   */
  maxContextTokens: number | null;
  /**
   * Tokens kept free for the answer; null reserves `min(4096, ceiling / 8)`.
   * @default null
   */
  reserveOutputTokens: number | null;
  /**
   * Share of the ceiling kept free.
   * @default 0.1
   */
  safetyMarginRatio: number;
  /**
   * When the history no longer fits, cut it back to this share of the room in one go; the window's
   * start then holds while the next turns only append, so the provider's prompt cache keeps serving
   * the payload's start. 1 drops only what must go, on every call.
   * @default 0.8
   */
  cutBackRatio: number;
  /**
   * With `cutBackRatio` below 1: share of the room that keeps the conversation's first messages (the
   * task, the first lookups) in front of the window when the history is cut; they stay in the
   * payload and in its cached prefix. 0 keeps none.
   * @default 0.8
   */
  keepFirstShare: number;
}

/** The plugin id. */
export const SLIDING_WINDOW_STRATEGY_ID = 'std-sliding-window-strategy';

/**
 * Validates a config against the plugin's `configSchema` and returns a copy with the schema's defaults
 * applied, exactly as the loader does, so a direct caller of `createStrategy` gets the defaults and the
 * errors the loader gives. Never touches its argument; `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveSlidingWindowConfig(
  config: Partial<SlidingWindowConfig> | undefined | null,
): SlidingWindowConfig {
  return applyConfigSchema(
    SLIDING_WINDOW_STRATEGY_ID,
    manifest.configSchema,
    config ?? {},
  ) as unknown as SlidingWindowConfig;
}

/** The defaults of {@link SlidingWindowConfig}: the schema's `default`s, as ajv applies them to `{}`. */
export const SLIDING_WINDOW_DEFAULTS: Readonly<SlidingWindowConfig> = Object.freeze(resolveSlidingWindowConfig({}));
