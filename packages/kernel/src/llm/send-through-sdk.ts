import type { SdkErrorClasses } from './sdk-error-classes';
import { sdkErrorToLLMError } from './sdk-error-to-llm-error';

/** One model call made with an official SDK client. */
export interface SdkCall {
  /** Client name used in errors (`openai-compatible:<model>`, `anthropic:<model>`). */
  client: string;
  model: string;
  /** The endpoint, for errors. */
  url: string;
  /** The per-attempt timeout given to the SDK, for errors. */
  timeoutMs: number;
  /** The SDK's error classes, to map what it throws. */
  errors: SdkErrorClasses;
  /** The fetch the SDK is to send with. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The SDK's answer, the HTTP attempts it took and the status of the last one. */
export interface SdkAnswer<T> {
  answer: T;
  attempts: number;
  status: number | undefined;
}

/**
 * Runs `send` (a call on an SDK client made with the fetch it is given) and counts the HTTP
 * attempts the SDK makes through that fetch, its retries included, so that answers and errors can
 * say how many it took. Whatever `send` throws is mapped to a ctxkit error by
 * {@link sdkErrorToLLMError}.
 *
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError
 */
export async function sendThroughSdk<T>(
  call: SdkCall,
  send: (fetch: typeof globalThis.fetch) => Promise<T>,
): Promise<SdkAnswer<T>> {
  let attempts = 0;
  let lastStatus: number | undefined;
  const countingFetch: typeof globalThis.fetch = async (input, init) => {
    attempts += 1;
    lastStatus = undefined;
    let response: Response;
    try {
      response = await (call.fetch ?? globalThis.fetch)(input, init);
    } catch (error) {
      throw init?.signal?.aborted ? abortedAttempt(error) : error;
    }
    lastStatus = response.status;
    return response;
  };
  try {
    const answer = await send(countingFetch);
    return { answer, attempts, status: lastStatus };
  } catch (error) {
    throw sdkErrorToLLMError(error, call.errors, {
      client: call.client,
      model: call.model,
      url: call.url,
      timeoutMs: call.timeoutMs,
      attempts,
      lastStatus,
    });
  }
}

/**
 * fetch rejects an aborted request with the signal's reason, which need not be an `Error` named
 * `AbortError` (a custom fetch's own value, or a `DOMException` from another realm under a test
 * runner's sandbox); the SDKs tell a timed-out attempt from a failed connection by that name only.
 */
function abortedAttempt(reason: unknown): Error {
  const error = new Error('The attempt was aborted (timeout or caller signal).', { cause: reason });
  error.name = 'AbortError';
  return error;
}
