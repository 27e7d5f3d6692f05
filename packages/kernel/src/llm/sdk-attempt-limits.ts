import type { RetryOptions } from './retry-options';

/** The per-attempt timeout when neither the request nor the client's options give one. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000;
/** Retries after the first attempt when the client's options give no `retry.maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;

/** The options an official SDK client's timeout and retries are read from. */
export interface SdkAttemptOptions {
  /** Per-attempt timeout (a timed-out attempt is retried). @default 60000 */
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** The SDK constructor's `timeout` and `maxRetries`, from the options (else the defaults). */
export function sdkAttemptLimits(options: SdkAttemptOptions): { timeout: number; maxRetries: number } {
  return {
    timeout: options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    maxRetries: options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES,
  };
}
