import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * A LangChain message that has no ctxkit equivalent, or a malformed one (a tool call without an
 * id, arguments that are not JSON). Code `CTXKIT_HISTORY_INVALID`; `details.index` is the message's
 * position in the list being converted.
 */
export class LangChainMessageError extends CtxkitError {
  constructor(index: number, problem: string, fix: string) {
    super({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `LangChain message ${index}: ${problem}.`,
      fix,
      details: { index, problem },
    });
  }
}

/**
 * The conversation id the middleware derived from a LangGraph run (by default its `thread_id`) cannot
 * name a ctxkit session. Code `CTXKIT_STORE_KEY_INVALID`; `details.sessionId` is the rejected id.
 */
export class SessionIdError extends CtxkitError {
  constructor(sessionId: unknown, cause?: unknown) {
    super({
      code: ErrorCodes.STORE_KEY_INVALID,
      category: 'user',
      message: `The conversation id ${JSON.stringify(sessionId) ?? String(sessionId)} cannot be a ctxkit session id.`,
      fix:
        'Use a non-empty thread id of at most 200 characters once escaped (characters outside [A-Za-z0-9._:@-] ' +
        'take 3 or 6; hash longer ids), or pass ctxkitMiddleware({ sessionId: (run) => ... }) returning such an ' +
        'id.',
      details: { sessionId: typeof sessionId === 'string' ? sessionId : String(sessionId) },
      cause,
    });
  }
}
