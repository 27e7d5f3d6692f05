import type { JsonSchema } from '@ctxkit/core';
import { applyConfigSchema, type MemoryRole, type RecallConfig } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';

/** The plugin id. */
export const ENTITY_EXTRACTION_STRATEGY_ID = 'std-entity-extraction-strategy';

/**
 * Validated config of `std-entity-extraction-strategy`. The plugin's `plugin.json` `configSchema`
 * is the one source of the defaults and of what is valid; the `@default` tags below document them and
 * a unit test keeps both in step.
 * @see docs/strategies/entity-extraction.md
 */
export interface EntityExtractionConfig {
  /** JSON Schema of the conversation state; its top-level properties are the fields extracted. */
  stateSchema: JsonSchema;
  /** Model of the extraction call; `null` uses the agent's model. @default null */
  extractionModel: string | null;
  /** Recent turns kept verbatim in lean mode (the current turn always). @default 1 */
  recentTurns: number;
  /** Lean mode: the state and only the last `recentTurns` turns, the smallest payload. @default false */
  lean: boolean;
  /** Share of the room (budget less system prompt, tools and dynamic context) the state block may take. @default 0.8 */
  memoryShare: number;
  /**
   * Where the state block is sent: `user`, in a user message framed as a quoted record of the earlier
   * conversation; `system`, in a system message before the history, with the system prompt's authority.
   * @default 'user'
   */
  memoryRole: MemoryRole;
  /** Instruction of the extraction call; `null` uses {@link DEFAULT_EXTRACTION_PROMPT}. @default null */
  extractionPrompt: string | null;
  /** Token cap of the state block in the payload. @default 1024 */
  stateMaxTokens: number;
  /** Output limit of one extraction call. @default 1024 */
  extractionMaxOutputTokens: number;
  /**
   * Deadline of one extraction (the call and its retry together), in ms, enforced by the strategy:
   * past it the previous state stands and `entities-error` reports `CTXKIT_LLM_TIMEOUT`; calls wait
   * for it at most `extractionWaitMs`. @default 30000
   */
  extractionTimeoutMs: number;
  /**
   * Longest `composePayload` (and `onTurnComplete`) waits for the extraction's model, in ms; past it
   * the payload is composed with the previous state and the extraction finishes in the background.
   * The offline extractor is always waited for. @default 3000
   */
  extractionWaitMs: number;
  /**
   * After an extraction call failed or timed out, how long the model is not called, in ms (doubled per
   * failure in a row, at most 15 minutes); payloads are composed at once with the last state. 0: no
   * back-off. @default 30000
   */
  extractionRetryBackoffMs: number;
  /** Model for counting and the window; `null` uses the agent's model. @default null */
  model: string | null;
  /** Hard ceiling of payload plus output reservation; `null` uses the model's window. @default null */
  maxContextTokens: number | null;
  /** Tokens kept for the answer; `null` uses min(4096, ceiling / 8). @default null */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. @default 0.1 */
  safetyMarginRatio: number;
  /**
   * When the history beside the state no longer fits, cut it back to this share of its room in one
   * go; the window's start then holds while the next turns only append, and the state block sent
   * last time stays as it was while the window still holds every message read since. 1 drops only
   * what must go, on every call.
   * @default 0.6
   */
  cutBackRatio: number;
  /**
   * With `cutBackRatio` below 1: share of the room that keeps the conversation's first messages in
   * front of the window when the history is cut. 0 keeps none. Not used with `recall` on.
   * @default 0.3
   */
  keepFirstShare: number;
  /**
   * Recall earlier turns beside the state and the newest history (the older turns most relevant to the
   * newest user message, quoted in a user-role block); `{}` for the defaults. `null`: no recall.
   * @default null
   */
  recall: RecallConfig | null;
}

/** The config an agent writes: everything but `stateSchema` may be left out. */
export type EntityExtractionConfigInput = Partial<EntityExtractionConfig> & { stateSchema: JsonSchema };

/**
 * Validates an agent's config against the plugin's `configSchema` exactly as the loader does (core's
 * one ajv setup, compiled once) and applies its defaults, on a deep copy (the caller's object is never
 * touched). The loader has usually done this already; doing it again makes direct factory calls safe.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every issue
 */
export function resolveEntityExtractionConfig(
  input: Readonly<EntityExtractionConfigInput> | Record<string, unknown>,
): EntityExtractionConfig {
  return applyConfigSchema(
    ENTITY_EXTRACTION_STRATEGY_ID,
    manifest.configSchema,
    input,
  ) as unknown as EntityExtractionConfig;
}
