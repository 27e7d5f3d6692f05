import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A history a strategy cannot use as given (unknown roles, malformed messages). */
export class HistoryValidationError extends CtxkitError {
  constructor(index: number, problem: string) {
    super({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `history[${index}]: ${problem}.`,
      fix: 'Send messages in the OpenAI chat shape: role system|user|assistant|tool; tool messages need tool_call_id.',
      details: { index, problem },
    });
  }
}
