import { applyConfigSchema, type RecallConfig } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';

/**
 * Config of the recall strategy (`std-recall-strategy`). The plugin's `plugin.json` `configSchema` is
 * the one source of the defaults and of what is valid; its `recall` object is core's recall schema as
 * it is (a unit test keeps them equal).
 */
export interface RecallStrategyConfig {
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
  /** How earlier turns are recalled (share of the room, scope, embeddings). */
  recall: RecallConfig;
}

/** The plugin id. */
export const RECALL_STRATEGY_ID = 'std-recall-strategy';

/**
 * Validates a config against the plugin's `configSchema` and returns a copy with the schema's defaults
 * applied, exactly as the loader does. Never touches its argument; `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveRecallStrategyConfig(
  config: DeepPartial<RecallStrategyConfig> | undefined | null,
): RecallStrategyConfig {
  return applyConfigSchema(RECALL_STRATEGY_ID, manifest.configSchema, config ?? {}) as unknown as RecallStrategyConfig;
}

/** The defaults of {@link RecallStrategyConfig}: the schema's `default`s, as ajv applies them to `{}`. */
export const RECALL_STRATEGY_DEFAULTS: Readonly<RecallStrategyConfig> = Object.freeze(resolveRecallStrategyConfig({}));

/** A config with any field, at any depth, left out. */
export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
