/**
 * Config of the sliding window (`std-sliding-window-strategy`). The defaults live in the plugin's
 * `plugin.json` `configSchema`; the loader applies them before the factory runs. A unit test keeps the
 * documented defaults below equal to the schema's.
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
   * @default 1
   */
  cutBackRatio: number;
}

/** The documented defaults (equal to the schema's, checked by a test). */
export const SLIDING_WINDOW_DEFAULTS: Readonly<SlidingWindowConfig> = Object.freeze({
  model: 'gpt-4o',
  maxContextTokens: null,
  reserveOutputTokens: null,
  safetyMarginRatio: 0.1,
  cutBackRatio: 1,
});

/** The plugin id. */
export const SLIDING_WINDOW_STRATEGY_ID = 'std-sliding-window-strategy';
