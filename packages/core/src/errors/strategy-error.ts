import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * Wraps anything a strategy plugin throws that is not a ctxkit error, so that a plugin bug never
 * looks like a ctxkit bug. A `CtxkitError` thrown from inside a plugin passes through untouched.
 */
export class StrategyError extends CtxkitError {
  constructor(pluginId: string, agentId: string, method: string, cause: unknown) {
    const inner = cause instanceof Error ? cause.message : String(cause);
    super({
      code: ErrorCodes.STRATEGY_ERROR,
      category: 'plugin',
      message: `${pluginId}: ${method} failed for agent "${agentId}": ${inner}`,
      fix: `This is a bug in the strategy plugin ${pluginId}; report it to its authors with the cause below.`,
      details: { pluginId, agentId, method },
      cause,
    });
  }
}
