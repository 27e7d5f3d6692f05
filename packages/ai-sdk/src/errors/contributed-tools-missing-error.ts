import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * The strategy offers tools (`tool_output_cache`, `compact` ...) that the AI SDK call was not given,
 * so the model could call a tool nobody runs (`CTXKIT_TOOL_NOT_FOUND`, category `user`). Thrown
 * before the request is sent.
 */
export class ContributedToolsMissingError extends CtxkitError {
  constructor(strategyId: string, missing: readonly string[]) {
    super({
      code: ErrorCodes.TOOL_NOT_FOUND,
      category: 'user',
      message:
        `The strategy ${strategyId} offers ${missing.map((name) => `"${name}"`).join(', ')}, but the AI SDK ` +
        `call has no tool of that name.`,
      fix:
        "Pass tools: context.tools(yourTools) to generateText / streamText, so that the strategy's tools are " +
        'registered beside yours.',
      details: { strategyId, missing: [...missing] },
    });
  }
}
