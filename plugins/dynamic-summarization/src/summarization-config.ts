import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigSchemaError, ConfigValidationError, type ManifestIssue } from '@ctxkit/core';
import manifest from '../plugin.json';
import { SUMMARIZATION_STRATEGY_ID } from './strategy-id';

/** Which summarizer folds the turns. */
export type SummarizerChoice = 'auto' | 'llm' | 'offline';

/**
 * Config of `std-summarization-strategy` after validation. The plugin's `configSchema` (plugin.json)
 * is the one source of the defaults and of what is valid: the loader applies it, and
 * {@link resolveSummarizationConfig} applies the same schema for direct callers. A unit test keeps the
 * keys of this type and the schema's properties equal.
 * @see docs/strategies/dynamic-summarization.md
 */
export interface SummarizationConfig {
  /** Model that writes summaries; null: the agent's model. */
  compressionModel: string | null;
  /** Unsummarized turns above which a background summary runs. */
  threshold: number;
  /** Oldest whole turns folded per run. */
  batchTurns: number;
  /** Token cap of the summary; null: the summary's share of the budget (`memoryShare`). */
  summaryMaxTokens: number | null;
  /** Share of the room (budget less system prompt, tools and dynamic context) the summary may take. */
  memoryShare: number;
  /** Cap on the transcript sent to the summarizer model. */
  summaryInputMaxTokens: number;
  /** `auto`, `llm` or `offline`. */
  summarizer: SummarizerChoice;
  /** Instructions replacing the built-in prompt; null: the built-in prompt. */
  summaryPrompt: string | null;
  /** Model for counting and the context window; null: the agent's model. */
  model: string | null;
  /** Hard ceiling of payload plus output reservation; null: the model's window. */
  maxContextTokens: number | null;
  /** Tokens kept for the answer; null: min(4096, ceiling / 8). */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. */
  safetyMarginRatio: number;
  /** Consecutive failures before attempts stop until the turns to fold change. */
  maxConsecutiveFailures: number;
  /** Backoff after a failure, doubled per consecutive failure. */
  retryBackoffMs: number;
  /** Timeout of one summary attempt. */
  summaryTimeoutMs: number;
  /** Longest wait of composePayload on a running summary. */
  summaryWaitMs: number;
}

const PLUGIN_ID = SUMMARIZATION_STRATEGY_ID;
const SCHEMA_FILE = 'plugin.json#/configSchema';
const INLINE = '<inline>';
const KNOWN_PROPERTIES = Object.keys(manifest.configSchema.properties).join(', ');

let validator: ValidateFunction | undefined;

/**
 * The schema compiled once, with the options the loader uses for a plugin's `configSchema`: every
 * error at once, the offending value in each, `default`s applied to the object validated (a copy).
 */
function configValidator(): ValidateFunction {
  if (validator) return validator;
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, useDefaults: true });
  try {
    validator = ajv.compile(structuredClone(manifest.configSchema));
  } catch (cause) {
    throw new ConfigSchemaError(PLUGIN_ID, SCHEMA_FILE, cause instanceof Error ? cause.message : String(cause));
  }
  return validator;
}

/**
 * Validates a config against the plugin's `configSchema` and returns a copy with the schema's
 * defaults applied, so a direct caller of `createStrategy` gets the defaults and the errors the
 * loader gives. Never touches its argument (a frozen config is fine); `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveSummarizationConfig(config: Partial<SummarizationConfig> | undefined | null): SummarizationConfig {
  const given: unknown = config ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new ConfigValidationError(PLUGIN_ID, INLINE, [{ file: INLINE, pointer: '', message: `the config must be an object, got ${JSON.stringify(given)}`, expected: 'type object' }]);
  }
  let copy: Record<string, unknown>;
  try {
    copy = structuredClone(given) as Record<string, unknown>;
  } catch {
    throw new ConfigValidationError(PLUGIN_ID, INLINE, [{ file: INLINE, pointer: '', message: 'the config holds values that are not JSON (functions, symbols)', expected: 'JSON data' }]);
  }
  const validate = configValidator();
  if (!validate(copy)) throw new ConfigValidationError(PLUGIN_ID, INLINE, (validate.errors ?? []).map(toIssue));
  return copy as unknown as SummarizationConfig;
}

/** The defaults of {@link SummarizationConfig}: the schema's `default`s, as ajv applies them to `{}`. */
export const SUMMARIZATION_DEFAULTS: Readonly<SummarizationConfig> = Object.freeze(resolveSummarizationConfig({}));

/** One ajv error as an issue: where, what is wrong with the value given, what the schema expects. */
function toIssue(error: ErrorObject): ManifestIssue {
  const params = error.params as Record<string, unknown>;
  const got = JSON.stringify(error.data);
  if (error.keyword === 'additionalProperties') {
    const property = String(params.additionalProperty);
    return { file: INLINE, pointer: `/${property}`, message: `unknown property "${property}"`, expected: `one of: ${KNOWN_PROPERTIES}` };
  }
  const expected =
    error.keyword === 'enum'
      ? `one of: ${((params.allowedValues as unknown[]) ?? []).map((value) => JSON.stringify(value)).join(', ')}`
      : error.keyword === 'type'
        ? `type ${String(params.type)}`
        : `${error.keyword} ${String(params.limit ?? JSON.stringify(error.schema))}`;
  return { file: INLINE, pointer: error.instancePath, message: `invalid value ${got}: ${error.message ?? error.keyword}`, expected };
}
