import { ConfigValidationError, type ManifestIssue } from '@ctxkit/core';

/** Which summarizer folds the turns. */
export type SummarizerChoice = 'auto' | 'llm' | 'offline';

/**
 * Config of `std-summarization-strategy` after validation. The plugin's `configSchema`
 * (plugin.json) is the source of the defaults; {@link SUMMARIZATION_DEFAULTS} mirrors it (a test
 * keeps them equal).
 * @see docs/strategies/dynamic-summarization.md
 */
export interface SummarizationConfig {
  /** Model that writes summaries; null: the agent's model. @default null */
  compressionModel: string | null;
  /** Unsummarized turns above which a background summary runs. @default 10 */
  threshold: number;
  /** Oldest whole turns folded per run. @default 5 */
  batchTurns: number;
  /** Token cap of the summary; null: the summary's share of the budget (`memoryShare`). @default null */
  summaryMaxTokens: number | null;
  /** Share of the room (budget less system prompt, tools and dynamic context) the summary may take. @default 0.5 */
  memoryShare: number;
  /** Cap on the transcript sent to the summarizer model. @default 8000 */
  summaryInputMaxTokens: number;
  /** `auto`, `llm` or `offline`. @default 'auto' */
  summarizer: SummarizerChoice;
  /** Instructions replacing the built-in prompt. @default null */
  summaryPrompt: string | null;
  /** Model for counting and the context window; null: the agent's model. @default null */
  model: string | null;
  /** Hard ceiling of payload plus output reservation. @default null (the model's window) */
  maxContextTokens: number | null;
  /** Tokens kept for the answer. @default null (min(4096, ceiling / 8)) */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. @default 0.1 */
  safetyMarginRatio: number;
  /** Consecutive failures before attempts stop until the turns to fold change. @default 3 */
  maxConsecutiveFailures: number;
  /** Backoff after a failure, doubled per consecutive failure. @default 10000 */
  retryBackoffMs: number;
  /** Timeout of one summary attempt. @default 60000 */
  summaryTimeoutMs: number;
  /** Longest wait of composePayload on a running summary. @default 5000 */
  summaryWaitMs: number;
}

/** The defaults of {@link SummarizationConfig}, equal to those of plugin.json's configSchema. */
export const SUMMARIZATION_DEFAULTS: Readonly<SummarizationConfig> = Object.freeze({
  compressionModel: null,
  threshold: 10,
  batchTurns: 5,
  summaryMaxTokens: null,
  memoryShare: 0.5,
  summaryInputMaxTokens: 8000,
  summarizer: 'auto',
  summaryPrompt: null,
  model: null,
  maxContextTokens: null,
  reserveOutputTokens: null,
  safetyMarginRatio: 0.1,
  maxConsecutiveFailures: 3,
  retryBackoffMs: 10000,
  summaryTimeoutMs: 60000,
  summaryWaitMs: 5000,
});

const INTEGER_MINIMUMS: Partial<Record<keyof SummarizationConfig, number>> = {
  threshold: 1,
  batchTurns: 1,
  summaryMaxTokens: 32,
  summaryInputMaxTokens: 256,
  maxContextTokens: 1,
  reserveOutputTokens: 0,
  maxConsecutiveFailures: 1,
  retryBackoffMs: 0,
  summaryTimeoutMs: 1,
  summaryWaitMs: 0,
};

/**
 * Applies the defaults to a partial config (the loader already validated and filled it; direct
 * callers of `createStrategy` may pass less) and checks the values the schema constrains, so a
 * direct caller gets the same errors the loader gives. Never mutates its argument.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field
 */
export function resolveSummarizationConfig(config: Partial<SummarizationConfig> | undefined): SummarizationConfig {
  const resolved: SummarizationConfig = { ...SUMMARIZATION_DEFAULTS };
  const issues: ManifestIssue[] = [];
  const issue = (key: string, expected: string): void => {
    issues.push({ file: '<inline>', pointer: `/${key}`, message: `invalid value ${JSON.stringify((config as Record<string, unknown>)[key])}`, expected });
  };
  for (const [key, value] of Object.entries(config ?? {})) {
    if (!(key in SUMMARIZATION_DEFAULTS)) {
      issues.push({ file: '<inline>', pointer: `/${key}`, message: 'unknown property', expected: `one of: ${Object.keys(SUMMARIZATION_DEFAULTS).join(', ')}` });
      continue;
    }
    if (value === undefined) continue;
    const name = key as keyof SummarizationConfig;
    const minimum = INTEGER_MINIMUMS[name];
    if (minimum !== undefined) {
      const nullable = name === 'maxContextTokens' || name === 'reserveOutputTokens' || name === 'summaryMaxTokens';
      if (!(value === null && nullable) && !(Number.isInteger(value) && (value as number) >= minimum)) {
        issue(key, `${nullable ? 'null or ' : ''}an integer >= ${minimum}`);
        continue;
      }
    } else if (name === 'safetyMarginRatio') {
      if (typeof value !== 'number' || !(value >= 0 && value < 1)) {
        issue(key, 'a number in [0, 1)');
        continue;
      }
    } else if (name === 'memoryShare') {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
        issue(key, 'a number in [0, 1]');
        continue;
      }
    } else if (name === 'summarizer') {
      if (value !== 'auto' && value !== 'llm' && value !== 'offline') {
        issue(key, 'one of: "auto", "llm", "offline"');
        continue;
      }
    } else if (value !== null && (typeof value !== 'string' || value.length === 0)) {
      issue(key, 'null or a non-empty string');
      continue;
    }
    (resolved as unknown as Record<string, unknown>)[key] = value;
  }
  if (issues.length > 0) throw new ConfigValidationError('std-summarization-strategy', '<inline>', issues);
  return resolved;
}
