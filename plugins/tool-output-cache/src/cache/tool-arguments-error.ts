import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/** A contributed tool was called with arguments it cannot use; the model gets the message as the tool result. */
export class ToolArgumentsError extends CtxkitError {
  constructor(toolName: string, problem: string) {
    super({
      code: ErrorCodes.TOOL_EXECUTION_FAILED,
      category: 'user',
      message: `${toolName}: ${problem}`,
      fix: `Call ${toolName} again with arguments that match its parameters.`,
      details: { toolName, problem },
    });
  }
}
