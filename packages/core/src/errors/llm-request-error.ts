import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import type { LLMErrorDetails } from './llm-error-details';

/** The request failed: network error, HTTP error status, rejected request. */
export class LLMRequestError extends CtxkitError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(
    message: string,
    details: LLMErrorDetails,
    options: { retryable: boolean; cause?: unknown; fix?: string },
  ) {
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
