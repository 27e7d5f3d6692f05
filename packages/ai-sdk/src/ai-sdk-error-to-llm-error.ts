import { CtxkitError, type LLMErrorDetails, LLMRequestError, LLMResponseError } from '@ctxkit/core';
import { networkErrorCode, retryAfterMs } from '@ctxkit/core/strategy-kit';

/** The fields of the AI SDK's `APICallError` (read by shape: the adapter does not load the `ai` package for it). */
interface ApiCallErrorShape {
  name: 'AI_APICallError';
  message: string;
  url?: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  cause?: unknown;
}

/** Errors the AI SDK throws for an answer it could not read. */
const UNREADABLE_ANSWER = new Set([
  'AI_JSONParseError',
  'AI_InvalidResponseDataError',
  'AI_TypeValidationError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
]);

const BODY_EXCERPT = 2000;

function nameOf(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Maps what an AI SDK language model threw to a ctxkit error: an `APICallError` with a status to
 * `LLMRequestError` (`status`, `retryable` as the provider decided, the body excerpt,
 * `details.retryAfterMs` when the answer asked for a wait), one without a status (no connection) to
 * a retryable `LLMRequestError` with `details.networkCode`, an answer the provider could not read
 * (`JSONParseError`, `InvalidResponseDataError`, `TypeValidationError` …) to `LLMResponseError`, a
 * missing API key (`LoadAPIKeyError`, `LoadSettingError`) to a non-retryable `LLMRequestError` that
 * says to configure it, and anything else to a non-retryable `LLMRequestError`. A ctxkit error is
 * returned as it is.
 */
export function aiSdkErrorToLLMError(error: unknown, details: LLMErrorDetails): CtxkitError {
  if (CtxkitError.isInstance(error)) return error;
  const name = nameOf(error);
  const sdkError = name?.replace(/^AI_/, '');
  if (name === 'AI_APICallError') {
    const call = error as ApiCallErrorShape;
    const base = { ...details, sdkError, ...(call.url ? { url: call.url } : {}) };
    if (call.statusCode === undefined) {
      const code = networkErrorCode(call.cause);
      return new LLMRequestError(
        `network error${code ? ` (${code})` : ''}: ${call.message}`,
        { ...base, ...(code ? { networkCode: code } : {}) },
        {
          retryable: call.isRetryable ?? true,
          cause: error,
          fix: "Check that the provider's endpoint is reachable.",
        },
      );
    }
    const wait = retryAfterMs(call.responseHeaders);
    return new LLMRequestError(
      `HTTP ${call.statusCode}: ${call.message}`,
      {
        ...base,
        status: call.statusCode,
        ...(call.responseBody !== undefined ? { body: call.responseBody.slice(0, BODY_EXCERPT) } : {}),
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      },
      {
        retryable: call.isRetryable ?? false,
        cause: error,
        fix:
          call.statusCode === 401 || call.statusCode === 403
            ? "Check the provider's API key."
            : call.isRetryable
              ? 'The provider is overloaded or failing; try again later.'
              : 'The provider rejected the request; details.body holds its reason.',
      },
    );
  }
  if (name !== undefined && UNREADABLE_ANSWER.has(name))
    return new LLMResponseError(messageOf(error), { ...details, sdkError }, error);
  if (name === 'AI_LoadAPIKeyError' || name === 'AI_LoadSettingError') {
    return new LLMRequestError(
      messageOf(error),
      { ...details, sdkError },
      {
        retryable: false,
        cause: error,
        fix: "Configure the provider's API key (its environment variable or the provider's apiKey option).",
      },
    );
  }
  return new LLMRequestError(
    messageOf(error),
    { ...details, ...(sdkError !== undefined ? { sdkError } : {}) },
    { retryable: false, cause: error },
  );
}
