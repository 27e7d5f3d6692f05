import { createTokenUsage, type ProviderUsage, type TokenUsage, toTokenUsage } from '@ctxkit/core';
import type { UsageMetadata } from '@langchain/core/messages';

/**
 * LangChain usage as ctxkit's: LangChain's `input_tokens` include cache reads and writes, which go
 * apart; the one-hour part of the writes from the provider's raw usage in `response_metadata.usage`
 * (Anthropic's `cache_creation`) when the integration passes it on.
 */
export function tokenUsageOf(
  usage: UsageMetadata | undefined,
  metadata: Record<string, unknown> | undefined,
): TokenUsage {
  if (!usage) return createTokenUsage({});
  const cacheRead = usage.input_token_details?.cache_read ?? 0;
  const cacheWrite = usage.input_token_details?.cache_creation ?? 0;
  const raw = metadata?.usage;
  const oneHour =
    typeof raw === 'object' && raw !== null ? toTokenUsage(raw as ProviderUsage).cache_creation_1h_tokens : undefined;
  return createTokenUsage({
    input_tokens: Math.max(0, usage.input_tokens - cacheRead - cacheWrite),
    cache_read_tokens: cacheRead,
    cache_creation_tokens: cacheWrite,
    output_tokens: usage.output_tokens,
    ...(oneHour !== undefined ? { cache_creation_1h_tokens: oneHour } : {}),
  });
}
