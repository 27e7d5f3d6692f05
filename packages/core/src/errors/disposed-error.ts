import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** The object was disposed and cannot be used any more. */
export class DisposedError extends CtxkitError {
  constructor(what: string) {
    super({
      code: ErrorCodes.DISPOSED,
      category: 'user',
      message: `${what} has been disposed.`,
      fix: 'Load the agent again with runtime.loadAgent().',
      details: { what },
    });
  }
}
