import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** Details common to LLM failures. */
export interface LLMErrorDetails {
  client: string;
  model?: string;
  status?: number;
  attempts?: number;
  url?: string;
  body?: string;
  [key: string]: unknown;
}

/** The request failed: network error, HTTP error status, rejected request. */
export class LLMRequestError extends CtxkitError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(message: string, details: LLMErrorDetails, options: { retryable: boolean; cause?: unknown; fix?: string }) {
    super({
      code: ErrorCodes.LLM_REQUEST_FAILED,
      category: 'provider',
      message: `${details.client}: ${message}`,
      fix: options.fix ?? 'Check the base URL, API key and model name; transient errors are retried with backoff.',
      details: { ...details },
      cause: options.cause,
    });
    this.status = details.status;
    this.retryable = options.retryable;
  }
}

/** No answer within the timeout. */
export class LLMTimeoutError extends CtxkitError {
  constructor(details: LLMErrorDetails & { timeoutMs: number }, cause?: unknown) {
    super({
      code: ErrorCodes.LLM_TIMEOUT,
      category: 'provider',
      message: `${details.client}: no answer within ${details.timeoutMs} ms.`,
      fix: 'Raise timeoutMs, use a faster model, or check that the endpoint is up.',
      details: { ...details },
      cause,
    });
  }
}

/** The answer could not be used: malformed body, missing fields, empty, no expected tags or JSON. */
export class LLMResponseError extends CtxkitError {
  constructor(problem: string, details: LLMErrorDetails, cause?: unknown) {
    super({
      code: ErrorCodes.LLM_RESPONSE_INVALID,
      category: 'provider',
      message: `${details.client}: unusable answer: ${problem}.`,
      fix: 'Check that the endpoint speaks the provider protocol configured; nothing was changed.',
      details: { ...details, problem },
      cause,
    });
  }
}

/** A model was needed but none is configured. */
export class LLMNotConfiguredError extends CtxkitError {
  constructor(who: string) {
    super({
      code: ErrorCodes.LLM_NOT_CONFIGURED,
      category: 'user',
      message: `${who} needs a language model client, and none is configured.`,
      fix: 'Pass llm to createContextRuntime(), or set OPENAI_BASE_URL / OPENAI_API_KEY (or ANTHROPIC_API_KEY).',
      details: { who },
    });
  }
}
