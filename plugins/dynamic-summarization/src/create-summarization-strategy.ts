import type { StrategyContext } from '@ctxkit/core';

import { resolveSummarizationConfig, type SummarizationConfig } from './summarization-config';
import { SummarizationStrategy, type SummarizationStrategyOptions } from './summarization-strategy';

/**
 * The plugin's factory (`createStrategy` of the entry module): validates the config against
 * plugin.json's `configSchema` and applies its defaults (as the loader already did, so a direct caller
 * gets the same), then builds one strategy for the context's agent and session. Without an LLM
 * client (`context.llm` undefined) the offline extractive summarizer (no LLM) writes the summaries.
 *
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for an invalid config
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) for a model the registry does not know, unless
 *   `maxContextTokens` is given
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) for `summarizer: "llm"` without a client
 * @see docs/strategies/dynamic-summarization.md
 */
export function createStrategy(
  config: Partial<SummarizationConfig> | undefined | null,
  context: StrategyContext,
  options: SummarizationStrategyOptions = {},
): SummarizationStrategy {
  return new SummarizationStrategy(resolveSummarizationConfig(config), context, options);
}
