import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A session was asked for with another resource than the one it is open for. */
export class SessionResourceError extends CtxkitError {
  constructor(agentId: string, sessionId: string, current: string | undefined, requested: string) {
    super({
      code: ErrorCodes.SESSION_RESOURCE_CONFLICT,
      category: 'user',
      message:
        `Session "${sessionId}" of agent "${agentId}" is open ` +
        `for ${current === undefined ? 'no resource' : `resource "${current}"`}, not "${requested}".`,
      fix: 'Pass the same resourceId each time the session is opened, or use a new session id for the other resource.',
      details: { agentId, sessionId, current: current ?? null, requested },
    });
  }
}
