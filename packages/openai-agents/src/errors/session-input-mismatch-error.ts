import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * The session's `callModelInputFilter` was given model input that does not start with the history
 * this session returned from `getItems` (the filter was passed to a run without this session, or
 * the run's history was changed by a `sessionInputCallback`). Code `CTXKIT_CONFIG_INVALID`,
 * category `user`.
 */
export class SessionInputMismatchError extends CtxkitError {
  constructor(sessionId: string, problem: string) {
    super({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `CtxkitSession ${sessionId}: ${problem}.`,
      fix: 'Pass the session and its filter to the same run, run(agent, input, { session, callModelInputFilter: session.callModelInputFilter }), without a sessionInputCallback, and run one conversation at a time per session.',
      details: { sessionId, problem },
    });
  }
}
