import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A tool executor threw. The kernel reports it to the model as a tool error and goes on. */
export class ToolExecutionError extends CtxkitError {
  constructor(toolName: string, toolCallId: string, cause: unknown) {
    const inner = cause instanceof Error ? cause.message : String(cause);
    super({
      code: ErrorCodes.TOOL_EXECUTION_FAILED,
      category: 'user',
      message: `Tool "${toolName}" (call ${toolCallId}) failed: ${inner}`,
      fix: 'The error is given to the model as the tool result; fix the tool if it should not fail.',
      details: { toolName, toolCallId },
      cause,
    });
  }
}
