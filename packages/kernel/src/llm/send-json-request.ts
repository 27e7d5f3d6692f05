import { LLMRequestError, LLMResponseError, LLMTimeoutError } from '@ctxkit/core';
import { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetryOptions, type RetryOptions } from './retry-policy';

/** One JSON POST with timeout and retries. */
export interface JsonRequest {
  /** Client name used in errors (`openai-compatible`, `anthropic`). */
  client: string;
  model: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Per-attempt timeout. */
  timeoutMs: number;
  signal?: AbortSignal;
  retry?: RetryOptions;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A parsed JSON answer. */
export interface JsonResponse {
  status: number;
  json: unknown;
  /** Attempts made (1 when the first one succeeded). */
  attempts: number;
}

const BODY_EXCERPT = 2000;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorMessageOf(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof value.error === 'string') return value.error;
    if (value.error && typeof value.error.message === 'string') return value.error.message;
    if (typeof value.message === 'string') return value.message;
  } catch {
    // Not JSON: the raw excerpt is in details.body.
  }
  return undefined;
}

function networkCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * POSTs JSON and parses the JSON answer. Each attempt has its own timeout (an `AbortController`);
 * 408/409/429/5xx answers and network failures (refused connection, reset, a body cut short) are
 * retried with exponential backoff and jitter, waiting what `retry-after` asks when it says;
 * other 4xx answers are not retried. A timeout or the caller's signal ends the request at once.
 * The API key is never part of an error.
 *
 * @throws LLMRequestError (`CTXKIT_LLM_REQUEST_FAILED`) with `status` and `retryable` after the
 * last attempt, or at once for a non-retryable status
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when an attempt gets no answer within `timeoutMs`,
 * or the caller's signal aborts
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when a 2xx body is not JSON
 */
export async function sendJsonRequest(request: JsonRequest): Promise<JsonResponse> {
  const retry = resolveRetryOptions(request.retry);
  const doFetch = request.fetch ?? globalThis.fetch;
  const payload = JSON.stringify(request.body);
  const base = { client: request.client, model: request.model, url: request.url };
  let lastError: LLMRequestError | undefined;

  for (let attempt = 1; attempt <= retry.maxRetries + 1; attempt++) {
    const outcome = await attemptOnce(request, payload, doFetch, attempt);
    if ('json' in outcome) return outcome;
    lastError = outcome.error;
    if (!outcome.error.retryable || attempt > retry.maxRetries) throw outcome.error;
    const asked = outcome.retryAfterMs;
    if (asked !== undefined && asked > retry.maxRetryAfterMs) throw outcome.error;
    try {
      await sleep(asked ?? backoffDelay(attempt - 1, retry), request.signal);
    } catch (cause) {
      throw new LLMTimeoutError({ ...base, attempts: attempt, timeoutMs: request.timeoutMs, aborted: true }, cause);
    }
  }
  throw lastError!;
}

/** A failed attempt that may be retried. */
interface FailedAttempt {
  error: LLMRequestError;
  retryAfterMs?: number;
}

/** One attempt: a parsed answer, a failure to retry (or not), or a thrown terminal error. */
async function attemptOnce(request: JsonRequest, payload: string, doFetch: typeof fetch, attempt: number): Promise<JsonResponse | FailedAttempt> {
  const base = { client: request.client, model: request.model, url: request.url, attempts: attempt };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timeout after ${request.timeoutMs} ms`));
  }, request.timeoutMs);
  const onCallerAbort = (): void => controller.abort(request.signal!.reason);
  if (request.signal?.aborted) onCallerAbort();
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timeoutError = (cause: unknown): LLMTimeoutError => new LLMTimeoutError({ ...base, timeoutMs: request.timeoutMs, aborted: !timedOut }, cause);

  try {
    let response: Response;
    try {
      response = await doFetch(request.url, { method: 'POST', headers: request.headers, body: payload, signal: controller.signal });
    } catch (cause) {
      if (controller.signal.aborted) throw timeoutError(cause);
      const code = networkCode(cause);
      return {
        error: new LLMRequestError(
          `network error${code ? ` (${code})` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { ...base, ...(code ? { networkCode: code } : {}) },
          { retryable: true, cause, fix: 'Check that the endpoint is running and reachable at the configured base URL.' },
        ),
      };
    }

    let text: string;
    try {
      text = await response.text();
    } catch (cause) {
      if (controller.signal.aborted) throw timeoutError(cause);
      return {
        error: new LLMRequestError(
          `the connection closed before the whole answer arrived (HTTP ${response.status})`,
          { ...base, status: response.status },
          { retryable: true, cause },
        ),
      };
    }

    if (!response.ok) {
      const retryable = isRetryableStatus(response.status);
      const detail = errorMessageOf(text);
      const error = new LLMRequestError(
        `HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
        { ...base, status: response.status, body: text.slice(0, BODY_EXCERPT) },
        { retryable, fix: fixFor(response.status, retryable) },
      );
      const retryAfterMs = parseRetryAfter(response.headers);
      return retryAfterMs === undefined ? { error } : { error, retryAfterMs };
    }

    try {
      return { status: response.status, json: JSON.parse(text) as unknown, attempts: attempt };
    } catch (cause) {
      throw new LLMResponseError('the body is not valid JSON', { ...base, status: response.status, body: text.slice(0, BODY_EXCERPT) }, cause);
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCallerAbort);
  }
}

function fixFor(status: number, retryable: boolean): string {
  if (status === 401 || status === 403) return 'Check the API key (OPENAI_API_KEY / ANTHROPIC_API_KEY).';
  if (status === 404) return 'Check the base URL and the model name.';
  if (retryable) return 'The provider is overloaded or failing; it was retried with backoff. Try again later or raise retry.maxRetries.';
  return 'The provider rejected the request; details.body holds its reason.';
}
