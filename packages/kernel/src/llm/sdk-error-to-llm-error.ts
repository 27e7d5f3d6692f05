import { CtxkitError, type LLMErrorDetails, LLMRequestError, LLMResponseError, LLMTimeoutError } from '@ctxkit/core';
import { networkErrorCode, retryAfterMs } from '@ctxkit/core/strategy-kit';

import type { SdkApiError, SdkErrorClasses } from './sdk-error-classes';

/** The call that failed, as the error's details report it. */
export interface FailedSdkCall {
  client: string;
  model: string;
  url: string;
  timeoutMs: number;
  /** HTTP attempts made (1 when the first one failed without a retry). */
  attempts: number;
  /** Status of the last answer whose headers arrived; its body may have been cut short after them. */
  lastStatus: number | undefined;
}

const BODY_EXCERPT = 2000;

/**
 * Maps what an official SDK call threw to the ctxkit error for it:
 * - `APIUserAbortError` (the caller's signal) and `APIConnectionTimeoutError` → `LLMTimeoutError`
 *   (`details.aborted` tells the two apart);
 * - `APIConnectionError` → a retryable `LLMRequestError` with `details.networkCode` (`ECONNREFUSED` …);
 * - an `APIError` with a status (`BadRequestError`, `AuthenticationError`, `RateLimitError`,
 *   `InternalServerError` …) → `LLMRequestError` with `status`, the provider's reason in the message,
 *   the body excerpt in `details.body`, `details.retryAfterMs` when the answer asked for a wait, and
 *   `retryable` by the SDKs' rule (408, 409, 429, 5xx, or what `x-should-retry` says);
 * - a 2xx body that is not JSON → `LLMResponseError`;
 * - a body cut short after the headers arrived → a retryable `LLMRequestError`.
 * A ctxkit error is returned as it is. The API key is never part of the result.
 */
export function sdkErrorToLLMError(error: unknown, sdk: SdkErrorClasses, call: FailedSdkCall): CtxkitError {
  if (CtxkitError.isInstance(error)) return error;
  const details: LLMErrorDetails = { client: call.client, model: call.model, url: call.url, attempts: call.attempts };
  if (error instanceof sdk.APIUserAbortError)
    return new LLMTimeoutError({ ...details, timeoutMs: call.timeoutMs, aborted: true }, error);
  if (error instanceof sdk.APIConnectionTimeoutError)
    return new LLMTimeoutError({ ...details, timeoutMs: call.timeoutMs, aborted: false }, error);
  if (error instanceof sdk.APIConnectionError) {
    const code = networkErrorCode(error);
    return new LLMRequestError(
      `network error${code ? ` (${code})` : ''}: ${innermostMessage(error)}`,
      { ...details, ...(code ? { networkCode: code } : {}) },
      {
        retryable: true,
        cause: error,
        fix: 'Check that the endpoint is running and reachable at the configured base URL.',
      },
    );
  }
  if (error instanceof sdk.APIError && error.status !== undefined) return statusError(error, error.status, details);
  if (nameOf(error) === 'SyntaxError') {
    return new LLMResponseError(
      'the body is not valid JSON',
      { ...details, ...(call.lastStatus !== undefined ? { status: call.lastStatus } : {}) },
      error,
    );
  }
  if (call.lastStatus !== undefined) {
    return new LLMRequestError(
      `the connection closed before the whole answer arrived (HTTP ${call.lastStatus})`,
      { ...details, status: call.lastStatus },
      {
        retryable: true,
        cause: error,
        fix: 'The endpoint dropped the connection mid-answer; try again, or check the server or proxy in between.',
      },
    );
  }
  return new LLMRequestError(innermostMessage(error), details, { retryable: false, cause: error });
}

function statusError(error: SdkApiError, status: number, details: LLMErrorDetails): LLMRequestError {
  const retryable = isRetryable(status, error.headers);
  const reason = providerReasonOf(error.error);
  const wait = error.headers ? retryAfterMs(error.headers) : undefined;
  const body = error.error === undefined ? error.message : JSON.stringify(error.error);
  return new LLMRequestError(
    `HTTP ${status}${reason ? `: ${reason}` : ''}`,
    {
      ...details,
      status,
      sdkError: error.constructor.name,
      body: body.slice(0, BODY_EXCERPT),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    },
    { retryable, cause: error, fix: fixFor(status, retryable) },
  );
}

/** The SDKs' retry rule: `x-should-retry` when the server sends it, else 408, 409, 429 and 5xx. */
function isRetryable(status: number, headers: SdkApiError['headers']): boolean {
  const told = headers?.get('x-should-retry');
  if (told === 'true') return true;
  if (told === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `message` of an OpenAI error object, or `error.message` of an Anthropic error body. */
function providerReasonOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return typeof body === 'string' && body !== '' ? body : undefined;
  const value = body as { message?: unknown; error?: unknown };
  if (typeof value.message === 'string') return value.message;
  if (typeof value.error === 'string') return value.error;
  if (value.error !== null && typeof value.error === 'object') {
    const inner = (value.error as { message?: unknown }).message;
    if (typeof inner === 'string') return inner;
  }
  return undefined;
}

function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let current: unknown = error;
    current !== undefined && current !== null && chain.length < 8;
    current = (current as { cause?: unknown }).cause
  ) {
    chain.push(current);
  }
  return chain;
}

/** The message of the deepest cause, which names what failed (`connect ECONNREFUSED 127.0.0.1:…`). */
function innermostMessage(error: unknown): string {
  const messages = causesOf(error)
    .map((cause) => (typeof cause === 'string' ? cause : messageOf(cause)))
    .filter((message) => message !== '');
  return messages[messages.length - 1] ?? String(error);
}

// Errors from Node's own fetch come from another realm under test runners' sandboxes, so they are
// read by shape rather than with `instanceof Error`.
function nameOf(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : '';
}

function fixFor(status: number, retryable: boolean): string {
  if (status === 401 || status === 403) return 'Check the API key (OPENAI_API_KEY / ANTHROPIC_API_KEY).';
  if (status === 404) return 'Check the base URL and the model name.';
  if (retryable)
    return (
      'The provider is overloaded or failing; it was retried with backoff. Try again later or raise ' +
      'retry.maxRetries.'
    );
  return 'The provider rejected the request; details.body holds its reason.';
}
