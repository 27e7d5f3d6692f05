import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** The model called a tool that is not registered. */
export class ToolNotFoundError extends CtxkitError {
  constructor(toolName: string, available: readonly string[]) {
    super({
      code: ErrorCodes.TOOL_NOT_FOUND,
      category: 'provider',
      message: `The model called unknown tool "${toolName}". Available: ${available.join(', ') || '(none)'}.`,
      details: { toolName, available: [...available] },
    });
  }
}
