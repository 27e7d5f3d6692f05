import { applyConfigSchema, type MemoryRole, type RecallConfig } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';
import { SUMMARIZATION_STRATEGY_ID } from './strategy-id';

/** Which summarizer folds the turns. */
export type SummarizerChoice = 'auto' | 'llm' | 'offline';

/** Who writes an LLM summarizer's summaries (`engine`). */
export type SummaryEngine = 'ctxkit' | 'provider' | 'auto';

/** The script summaries are written in: the user's (`auto`), or a fixed one. */
export type SummaryScriptChoice = 'auto' | 'latin' | 'japanese' | 'chinese' | 'korean' | 'cyrillic' | 'arabic';

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
  /**
   * Where the summary is sent: `user`, in a user message framed as a quoted record of the earlier
   * conversation; `system`, in a system message right after the system prompt, with its authority.
   * @default 'user'
   */
  memoryRole: MemoryRole;
  /** Cap on the transcript sent to the summarizer model. */
  summaryInputMaxTokens: number;
  /** `auto`, `llm` or `offline`. */
  summarizer: SummarizerChoice;
  /**
   * Who writes an LLM summarizer's summaries: `ctxkit` (a summary request), `provider` (the provider's
   * readable compaction, falling back to the summary request), `auto` (`provider` where the client has one).
   * @default 'ctxkit'
   */
  engine: SummaryEngine;
  /** Instructions replacing the built-in prompt; null: the built-in prompt. */
  summaryPrompt: string | null;
  /**
   * Check each model-written summary (identifiers kept verbatim, the conversation's script); re-prompt once, then
   * refuse.
   */
  checkSummaries: boolean;
  /** The script summaries are written in: `auto` (the user's), or a fixed one. */
  summaryScript: SummaryScriptChoice;
  /** Model for counting and the context window; null: the agent's model. */
  model: string | null;
  /** Hard ceiling of payload plus output reservation; null: the model's window. */
  maxContextTokens: number | null;
  /** Tokens kept for the answer; null: min(4096, ceiling / 8). */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. */
  safetyMarginRatio: number;
  /**
   * When the history beside the summary no longer fits, cut it back to this share of its room in one
   * go; the window's start then holds while the next turns only append, and the summary sent last
   * time stays as it was while the window still holds every message after what it covers. 1 drops
   * only what must go, on every call.
   * @default 1
   */
  cutBackRatio: number;
  /**
   * Recall earlier turns beside the summary and the newest history (the older turns most relevant to
   * the newest user message, quoted in a user-role block); `{}` for the defaults. `null`: no recall.
   * @default null
   */
  recall: RecallConfig | null;
  /** Consecutive failures before attempts stop until the turns to fold change. */
  maxConsecutiveFailures: number;
  /** Backoff after a failure, doubled per consecutive failure. */
  retryBackoffMs: number;
  /** Timeout of one summary attempt. */
  summaryTimeoutMs: number;
  /** Longest wait of composePayload on a running summary. */
  summaryWaitMs: number;
  /**
   * Fold while the session is idle, before the provider's prompt cache expires: milliseconds after a
   * turn ends with no new request, `"auto"` for the cache lifetime of the agent's provider less 30
   * seconds (`PROVIDER_CACHE_TTL_MS`), or `null` (off).
   * @default null
   */
  idleCompaction: number | 'auto' | null;
}

/**
 * Validates a config against the plugin's `configSchema` and returns a copy with the schema's
 * defaults applied, exactly as the loader does, so a direct caller of `createStrategy` gets the
 * defaults and the errors the loader gives. Never touches its argument (a frozen config is fine);
 * `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveSummarizationConfig(
  config: Partial<SummarizationConfig> | undefined | null,
): SummarizationConfig {
  return applyConfigSchema(
    SUMMARIZATION_STRATEGY_ID,
    manifest.configSchema,
    config ?? {},
  ) as unknown as SummarizationConfig;
}

/** The defaults of {@link SummarizationConfig}: the schema's `default`s, as ajv applies them to `{}`. */
export const SUMMARIZATION_DEFAULTS: Readonly<SummarizationConfig> = Object.freeze(resolveSummarizationConfig({}));
