import { createTokenUsage, type ProviderUsage, type TokenUsage, toTokenUsage } from '@ctxkit/core';

import type { LanguageModelGenerateResult } from './ai-sdk-types';

/**
 * AI SDK usage as ctxkit's: uncached input, cache reads and writes apart, output; the one-hour part
 * of the writes from the provider's raw usage (`usage.raw`, Anthropic's `cache_creation`) when it
 * has one.
 */
export function tokenUsageOf(usage: LanguageModelGenerateResult['usage']): TokenUsage {
  const { total, noCache, cacheRead, cacheWrite } = usage.inputTokens;
  const oneHour =
    usage.raw === undefined ? undefined : toTokenUsage(usage.raw as ProviderUsage).cache_creation_1h_tokens;
  return createTokenUsage({
    input_tokens: noCache ?? Math.max(0, (total ?? 0) - (cacheRead ?? 0) - (cacheWrite ?? 0)),
    cache_read_tokens: cacheRead ?? 0,
    cache_creation_tokens: cacheWrite ?? 0,
    output_tokens: usage.outputTokens.total ?? 0,
    ...(oneHour !== undefined ? { cache_creation_1h_tokens: oneHour } : {}),
  });
}
