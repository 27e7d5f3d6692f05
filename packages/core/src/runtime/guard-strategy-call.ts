import { CtxkitError } from '../errors/ctxkit-error';
import { StrategyError } from '../errors/strategy-error';

/**
 * The error to throw for something a plugin threw: a ctxkit error passes through untouched (a
 * plugin may throw `BudgetExceededError` on purpose); anything else becomes a `StrategyError`
 * naming the plugin, the agent and the method, with the original as `cause`.
 */
export function toStrategyError(error: unknown, pluginId: string, agentId: string, method: string): unknown {
  return CtxkitError.isInstance(error) ? error : new StrategyError(pluginId, agentId, method, error);
}
