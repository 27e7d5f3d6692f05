import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * A ctxkit message the adapter cannot turn into Agents SDK items: a tool message whose call is not
 * before it in the list (a `function_call_result` needs the tool's name), or an unknown role. Code
 * `CTXKIT_HISTORY_INVALID`, category `user`; `details.index` is the message's position.
 */
export class ChatMessageItemError extends CtxkitError {
  constructor(index: number, problem: string, fix: string) {
    super({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `ctxkit message ${index}: ${problem}.`,
      fix,
      details: { index, problem },
    });
  }
}
