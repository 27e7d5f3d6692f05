import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * `llmClientFromLanguageModel` was given something it cannot call (`CTXKIT_CONFIG_INVALID`,
 * category `user`): a model id string, a model of an older specification, or no model at all.
 */
export class LanguageModelClientError extends CtxkitError {
  constructor(problem: string, fix: string) {
    super({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `llmClientFromLanguageModel: ${problem}.`,
      fix,
      details: { problem },
    });
  }
}
