import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * `createCtxkitSession` was given options that name no strategy, or two, or options that do not go
 * together. Code `CTXKIT_CONFIG_INVALID`, category `user`; `details.problem` says what is wrong.
 */
export class CtxkitSessionOptionsError extends CtxkitError {
  constructor(problem: string, fix: string) {
    super({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `createCtxkitSession: ${problem}.`,
      fix,
      details: { problem },
    });
  }
}
