import { CtxkitError, type LLMErrorDetails, LLMRequestError, LLMTimeoutError } from '@ctxkit/core';
import { networkErrorCode, retryAfterMs } from '@ctxkit/core/strategy-kit';

const BODY_EXCERPT = 2000;

/** LangChain's error codes for a request the provider refused for good. */
const FINAL_CODES = new Set([
  'MODEL_AUTHENTICATION',
  'MODEL_NOT_FOUND',
  'INVALID_PROMPT_INPUT',
  'INVALID_TOOL_RESULTS',
  'MESSAGE_COERCION_FAILURE',
]);

interface ProviderErrorShape {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  code?: unknown;
  lc_error_code?: unknown;
  headers?: unknown;
  error?: unknown;
  cause?: unknown;
}

/**
 * Maps what a LangChain chat model threw to a ctxkit error. LangChain's provider packages let their
 * SDK's errors through (with `lc_error_code` added): an error with an HTTP `status` becomes an
 * `LLMRequestError` with that status, `retryable` for 408, 409, 429 and 5xx (`MODEL_RATE_LIMIT`),
 * the body excerpt and `details.retryAfterMs` when the answer asked for a wait; a connection failure
 * (`ECONNREFUSED` …) a retryable one with `details.networkCode`; a timeout of the model's own a
 * `LLMTimeoutError`; anything else a non-retryable `LLMRequestError`. A ctxkit error is returned as it is.
 */
export function chatModelErrorToLLMError(
  error: unknown,
  details: LLMErrorDetails & { timeoutMs: number },
): CtxkitError {
  if (CtxkitError.isInstance(error)) return error;
  const shape = (error !== null && typeof error === 'object' ? error : {}) as ProviderErrorShape;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const sdkError = typeof shape.name === 'string' && shape.name !== 'Error' ? { sdkError: shape.name } : {};
  const lcCode = typeof shape.lc_error_code === 'string' ? { lcErrorCode: shape.lc_error_code } : {};
  const { timeoutMs, ...base } = details;
  if (typeof shape.status === 'number') {
    const status = shape.status;
    const retryable =
      !FINAL_CODES.has(String(shape.lc_error_code)) &&
      (status === 408 || status === 409 || status === 429 || status >= 500);
    const wait = retryAfterMs(shape.headers);
    const body = shape.error !== undefined ? JSON.stringify(shape.error) : undefined;
    return new LLMRequestError(
      `HTTP ${status}: ${message}`,
      {
        ...base,
        ...sdkError,
        ...lcCode,
        status,
        ...(body !== undefined ? { body: body.slice(0, BODY_EXCERPT) } : {}),
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      },
      {
        retryable,
        cause: error,
        fix:
          status === 401 || status === 403
            ? "Check the chat model's API key."
            : retryable
              ? 'The provider is overloaded or failing; the model retried it as configured (maxRetries). Try again ' +
                'later.'
              : 'The provider rejected the request; details.body holds its reason.',
      },
    );
  }
  if (shape.name === 'APIConnectionTimeoutError' || shape.name === 'TimeoutError')
    return new LLMTimeoutError({ ...base, ...sdkError, timeoutMs, aborted: false }, error);
  const code = networkErrorCode(error);
  if (code !== undefined || shape.name === 'APIConnectionError') {
    return new LLMRequestError(
      `network error${code ? ` (${code})` : ''}: ${message}`,
      { ...base, ...sdkError, ...(code ? { networkCode: code } : {}) },
      {
        retryable: true,
        cause: error,
        fix: "Check that the chat model's endpoint is reachable.",
      },
    );
  }
  return new LLMRequestError(message, { ...base, ...sdkError, ...lcCode }, { retryable: false, cause: error });
}
