/**
 * Provider-reported token usage:
 * `total_tokens = input_tokens + cache_creation_tokens + cache_read_tokens + output_tokens`.
 */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_tokens: number;
  cache_read_tokens: number;
  total_tokens: number;
  /**
   * The part of `cache_creation_tokens` written with a one-hour time to live (Anthropic's
   * `usage.cache_creation.ephemeral_1h_input_tokens`), billed at a higher write price than the
   * default five-minute entries. Absent when the provider reports no split.
   */
  cache_creation_1h_tokens?: number;
}

/** The usage shapes providers answer with (OpenAI chat / Responses, Anthropic Messages). */
export interface ProviderUsage {
  // OpenAI chat completions
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** `cached_tokens` are read from the cache, `cache_write_tokens` written to it; both are inside `prompt_tokens`. */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  // OpenAI Responses and Anthropic
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  // Anthropic
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by time to live. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
}

function nonNegative(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Builds a {@link TokenUsage} from any provider usage object.
 *
 * OpenAI reports cached prompt tokens *inside* `prompt_tokens`; they are moved to
 * `cache_read_tokens` so that the total does not count them twice. Anthropic reports
 * `input_tokens` without the cached parts, which are added from their own fields.
 */
export function toTokenUsage(usage: ProviderUsage | null | undefined): TokenUsage {
  if (!usage) return createTokenUsage({});
  if (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined) {
    const cached = nonNegative(usage.prompt_tokens_details?.cached_tokens);
    const written = nonNegative(usage.prompt_tokens_details?.cache_write_tokens);
    const prompt = nonNegative(usage.prompt_tokens);
    return createTokenUsage({
      input_tokens: Math.max(0, prompt - cached - written),
      cache_read_tokens: cached,
      cache_creation_tokens: written,
      output_tokens: nonNegative(usage.completion_tokens),
    });
  }
  if (usage.input_tokens_details) {
    const cached = nonNegative(usage.input_tokens_details.cached_tokens);
    const written = nonNegative(usage.input_tokens_details.cache_write_tokens);
    return createTokenUsage({
      input_tokens: Math.max(0, nonNegative(usage.input_tokens) - cached - written),
      cache_read_tokens: cached,
      cache_creation_tokens: written,
      output_tokens: nonNegative(usage.output_tokens),
    });
  }
  const split = usage.cache_creation;
  return createTokenUsage({
    input_tokens: nonNegative(usage.input_tokens),
    output_tokens: nonNegative(usage.output_tokens),
    cache_creation_tokens: nonNegative(usage.cache_creation_input_tokens),
    cache_read_tokens: nonNegative(usage.cache_read_input_tokens),
    ...(split && typeof split === 'object'
      ? { cache_creation_1h_tokens: nonNegative(split.ephemeral_1h_input_tokens) }
      : {}),
  });
}

/** Creates a usage record with `total_tokens` computed as the sum above. */
export function createTokenUsage(parts: Partial<Omit<TokenUsage, 'total_tokens'>>): TokenUsage {
  const input_tokens = nonNegative(parts.input_tokens);
  const output_tokens = nonNegative(parts.output_tokens);
  const cache_creation_tokens = nonNegative(parts.cache_creation_tokens);
  const cache_read_tokens = nonNegative(parts.cache_read_tokens);
  const usage: TokenUsage = {
    input_tokens,
    output_tokens,
    cache_creation_tokens,
    cache_read_tokens,
    total_tokens: input_tokens + cache_creation_tokens + cache_read_tokens + output_tokens,
  };
  // The one-hour part is a share of the writes, never more; kept only when a provider reported the split.
  if (parts.cache_creation_1h_tokens !== undefined)
    usage.cache_creation_1h_tokens = Math.min(cache_creation_tokens, nonNegative(parts.cache_creation_1h_tokens));
  return usage;
}
