import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * An agent was given a second language model client after one of its sessions had already
 * worked with the first: its strategy's summaries or extraction would switch models mid-conversation.
 */
export class LLMClientInUseError extends CtxkitError {
  constructor(agentId: string, sessionId: string, current: string, given: string) {
    super({
      code: ErrorCodes.LLM_CLIENT_IN_USE,
      category: 'user',
      message:
        `Agent "${agentId}" already works with ${current} in session "${sessionId}"; it cannot switch ` +
        `to ${given}.`,
      fix:
        'Give the agent one client: runtime.loadAgent(path, { llm }), or createAgent(handle, { llm }) before the ' +
        'agent is used.',
      details: { agentId, sessionId, current, given },
    });
  }
}
