import { type AgentHandle, CtxkitError, DEFAULT_SESSION_ID, ErrorCodes, type IContextManager } from '@ctxkit/core';

import { SessionIdError } from './langchain-errors';

/**
 * What the middleware knows of a LangGraph run when it picks the conversation: its `configurable` and its `context`.
 */
export interface LangGraphRun {
  configurable?: Record<string, unknown> | undefined;
  context?: unknown;
}

/** Picks the ctxkit session (one strategy instance and its state) of a LangGraph run. */
export type SessionIdResolver = (run: LangGraphRun) => string;

/** The default {@link SessionIdResolver}: the run's `configurable.thread_id`, else `"default"`. */
export function threadSessionId(run: LangGraphRun): string {
  const id = run.configurable?.thread_id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return typeof id === 'string' && id !== '' ? id : DEFAULT_SESSION_ID;
}

/**
 * The agent's context manager for the session of `run`.
 * @throws SessionIdError (`CTXKIT_STORE_KEY_INVALID`) when the resolved id cannot name a session
 * @throws DisposedError (`CTXKIT_DISPOSED`) after the agent was disposed
 */
export function sessionFor(
  agent: AgentHandle,
  resolve: SessionIdResolver,
  run: LangGraphRun,
): { sessionId: string; manager: IContextManager } {
  const sessionId = resolve(run);
  if (typeof sessionId !== 'string') throw new SessionIdError(sessionId);
  try {
    return { sessionId, manager: agent.forSession(sessionId) };
  } catch (error) {
    if (CtxkitError.isInstance(error) && error.code === ErrorCodes.STORE_KEY_INVALID)
      throw new SessionIdError(sessionId, error);
    throw error;
  }
}
