import type { ContextOverflowError } from '@ctxkit/core';

/** The share of the refused payload's budget a retry gets when the provider gave no numbers. */
export const OVERFLOW_RETRY_SHARE = 0.85;

/** What {@link overflowRetryLimit} needs. */
export interface OverflowRetryLimitInput {
  overflow: ContextOverflowError;
  /** Tokens of the refused payload, by the agent's counter. */
  sentTokens: number;
  /** The line the refused payload was held to (its budget's `available`), when known. */
  previousLimit: number | undefined;
  /** Tokens kept for the answer (what was asked as `maxOutputTokens`; 0 when nothing was asked). */
  reserveOutputTokens: number;
}

/**
 * The budget a request the provider refused as too long is retried with, in the agent's tokens:
 * the provider's limit less the answer's reservation, converted to the agent's count when the
 * provider also said how many tokens it counted (its tokenizer may count more than the agent's);
 * else, or when those numbers would not make the payload smaller, {@link OVERFLOW_RETRY_SHARE} of
 * the refused payload's budget (of what was sent, when that was less).
 */
export function overflowRetryLimit(input: OverflowRetryLimitInput): number {
  const { limit, actual } = input.overflow;
  const previous = Math.min(input.sentTokens, input.previousLimit ?? input.sentTokens);
  const fallback = Math.floor(previous * OVERFLOW_RETRY_SHARE);
  if (limit === undefined) return fallback;
  const scale = actual !== undefined ? Math.min(1, input.sentTokens / actual) : 1;
  const implied = Math.floor((limit - input.reserveOutputTokens) * scale);
  return implied > 0 && implied < input.sentTokens ? implied : fallback;
}
