import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** `pin()` (or the `pin_context` tool) was given something it cannot pin. */
export class PinTargetError extends CtxkitError {
  constructor(sessionId: string, problem: string) {
    super({
      code: ErrorCodes.PIN_TARGET_INVALID,
      category: 'user',
      message: `Session "${sessionId}" cannot pin this: ${problem}.`,
      fix:
        'Pin a message by its index in the history you send (a non-negative integer) or a non-empty text, with ' +
        'an optional non-empty label.',
      details: { sessionId, problem },
    });
  }
}
