import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import type { LLMErrorDetails } from './llm-error-details';

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
