import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * A session trace could not be read: none stored, not a trace, a store that cannot be opened, or a transcript that does
 * not match it.
 */
export class SessionTraceError extends CtxkitError {
  constructor(problem: string, fix: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super({
      code: ErrorCodes.TRACE_UNREADABLE,
      category: 'user',
      message: `Cannot read the session trace: ${problem}.`,
      fix,
      details: { problem, ...details },
      cause,
    });
  }
}
