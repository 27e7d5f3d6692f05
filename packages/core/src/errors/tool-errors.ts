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

/** A tool output ref is unknown (never cached, or collected). */
export class ToolOutputRefNotFoundError extends CtxkitError {
  constructor(refId: string) {
    super({
      code: ErrorCodes.TOOL_OUTPUT_REF_NOT_FOUND,
      category: 'user',
      message: `No cached tool output with ref "${refId}".`,
      fix: 'Use a ref_id exactly as shown in a "[tool output trimmed; ref=…]" placeholder of this conversation.',
      details: { refId },
    });
  }
}

/** A payload would be rejected by the provider (orphans, role order, leading tool message). */
export class ProviderPayloadError extends CtxkitError {
  constructor(provider: string, problems: string[]) {
    super({
      code: ErrorCodes.PROVIDER_PAYLOAD_INVALID,
      category: 'internal',
      message: `Refusing to send a payload ${provider} would reject: ${problems.join('; ')}.`,
      fix: 'This is a strategy bug (a split tool-call group or role order); the request was not sent.',
      details: { provider, problems },
    });
  }
}
