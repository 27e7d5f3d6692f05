import type { CacheMissReport } from '../contracts/llm-client';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const tokens = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The provider's diagnosis of a prompt-cache miss in an answer's fields, where it returned one:
 * Anthropic's `diagnostics.cache_miss_reason` (`type`, `cache_missed_input_tokens`; `null` while
 * pending) and the OpenAI Responses API's `prompt_cache_diagnostics` of type `cache_miss`
 * (`reason`, `cache_missed_tokens`). Undefined for a hit, no diagnosis, or any other shape.
 */
export function toCacheMissReport(answer: unknown): CacheMissReport | undefined {
  if (!isObject(answer)) return undefined;
  const anthropic = isObject(answer.diagnostics) ? answer.diagnostics.cache_miss_reason : undefined;
  if (isObject(anthropic) && typeof anthropic.type === 'string') {
    const missed = tokens(anthropic.cache_missed_input_tokens);
    return { reason: anthropic.type, ...(missed !== undefined ? { missedTokens: missed } : {}) };
  }
  const openai = answer.prompt_cache_diagnostics;
  if (isObject(openai) && openai.type === 'cache_miss' && typeof openai.reason === 'string') {
    const missed = tokens(openai.cache_missed_tokens);
    return { reason: openai.reason, ...(missed !== undefined ? { missedTokens: missed } : {}) };
  }
  return undefined;
}
