import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * `createAiSdkContext` was given options that name no agent, or two (`CTXKIT_MANIFEST_INVALID`,
 * category `user`): the options are the agent's manifest in short.
 */
export class AiSdkOptionsError extends CtxkitError {
  constructor(problem: string, fix: string) {
    super({
      code: ErrorCodes.MANIFEST_INVALID,
      category: 'user',
      message: `createAiSdkContext: ${problem}.`,
      fix,
      details: { problem },
    });
  }
}
