/**
 * How a model client retries transient failures. The official SDKs do the retrying: 408, 409, 429
 * and 5xx answers, network errors and timed-out attempts are retried with exponential backoff and
 * jitter (0.5 s, doubling, capped at 8 s), waiting what `retry-after-ms` / `retry-after` asks when
 * it asks for at most 60 s.
 * @see docs/08-kernel.md
 */
export interface RetryOptions {
  /** Retries after the first attempt (0 sends each request once). @default 2 */
  maxRetries?: number;
}
