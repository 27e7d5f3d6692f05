import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * An AI SDK message the adapter cannot convert: not an object, an unknown role, or content of the
 * wrong type for its role (`CTXKIT_HISTORY_INVALID`, category `user`).
 */
export class ModelMessageError extends CtxkitError {
  constructor(index: number, problem: string) {
    super({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `messages[${index}]: ${problem}.`,
      fix:
        'Pass AI SDK ModelMessages: role system (string content), user, assistant (string or part array) or tool ' +
        '(array of tool-result parts).',
      details: { index, problem },
    });
  }
}
