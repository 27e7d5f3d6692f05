import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import type { LLMErrorDetails } from './llm-error-details';

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
