import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

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
