import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * `recall.scope` is `resource` but the session was opened without a resource id: there is nothing to
 * share recall with, and recall never crosses resources.
 */
export class RecallScopeError extends CtxkitError {
  constructor(strategyId: string, agentId: string, sessionId: string) {
    super({
      code: ErrorCodes.RECALL_SCOPE_UNAVAILABLE,
      category: 'user',
      message:
        `${strategyId}: recall.scope is "resource", but session "${sessionId}" of agent "${agentId}" was ` +
        `opened without a resourceId.`,
      fix:
        "Open the session with its resource: agent.forSession(sessionId, { resourceId: 'user-42' }), or set " +
        'recall.scope to "session".',
      details: { strategyId, agentId, sessionId },
    });
  }
}
