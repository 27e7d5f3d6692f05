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
}

/** The usage shapes providers answer with (OpenAI chat / Responses, Anthropic Messages). */
export interface ProviderUsage {
  // OpenAI chat completions
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  // OpenAI Responses and Anthropic
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  // Anthropic
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
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
    const prompt = nonNegative(usage.prompt_tokens);
    return createTokenUsage({
      input_tokens: Math.max(0, prompt - cached),
      cache_read_tokens: cached,
      output_tokens: nonNegative(usage.completion_tokens),
    });
  }
  if (usage.input_tokens_details) {
    const cached = nonNegative(usage.input_tokens_details.cached_tokens);
    return createTokenUsage({
      input_tokens: Math.max(0, nonNegative(usage.input_tokens) - cached),
      cache_read_tokens: cached,
      output_tokens: nonNegative(usage.output_tokens),
    });
  }
  return createTokenUsage({
    input_tokens: nonNegative(usage.input_tokens),
    output_tokens: nonNegative(usage.output_tokens),
    cache_creation_tokens: nonNegative(usage.cache_creation_input_tokens),
    cache_read_tokens: nonNegative(usage.cache_read_input_tokens),
  });
}

/** Creates a usage record with `total_tokens` computed as the sum above. */
export function createTokenUsage(parts: Partial<Omit<TokenUsage, 'total_tokens'>>): TokenUsage {
  const input_tokens = nonNegative(parts.input_tokens);
  const output_tokens = nonNegative(parts.output_tokens);
  const cache_creation_tokens = nonNegative(parts.cache_creation_tokens);
  const cache_read_tokens = nonNegative(parts.cache_read_tokens);
  return {
    input_tokens,
    output_tokens,
    cache_creation_tokens,
    cache_read_tokens,
    total_tokens: input_tokens + cache_creation_tokens + cache_read_tokens + output_tokens,
  };
}
