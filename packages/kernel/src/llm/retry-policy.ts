/** How an HTTP client retries transient failures (429, 5xx, network errors). */
export interface RetryOptions {
  /** Retries after the first attempt. @default 2 */
  maxRetries?: number;
  /** First backoff delay; doubles with each retry. @default 500 */
  baseDelayMs?: number;
  /** Ceiling of a computed backoff delay. @default 8000 */
  maxDelayMs?: number;
  /**
   * Longest `retry-after` the client waits for; a longer one ends the retries with the error.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /** Source of jitter in [0, 1). Injected so that tests are deterministic. @default Math.random */
  random?: () => number;
}

/** {@link RetryOptions} with every default applied. */
export type ResolvedRetryOptions = Required<RetryOptions>;

/** The defaults of {@link RetryOptions}. */
export const DEFAULT_RETRY_OPTIONS: ResolvedRetryOptions = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  random: Math.random,
};

/** Applies the defaults. */
export function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
  return { ...DEFAULT_RETRY_OPTIONS, ...(options ?? {}) };
}

/**
 * Exponential backoff with jitter: `min(maxDelayMs, baseDelayMs × 2^retry)` scaled by a random
 * factor in [0.5, 1), so that many clients failing together do not retry together.
 * @param retry 0 for the first retry
 */
export function backoffDelay(retry: number, options: ResolvedRetryOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(ceiling * (0.5 + options.random() / 2));
}

/**
 * Reads how long the server asks to wait: `retry-after-ms` (OpenAI), then `retry-after` as seconds
 * or as an HTTP date. Returns `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null }, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether an HTTP status is worth retrying: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
