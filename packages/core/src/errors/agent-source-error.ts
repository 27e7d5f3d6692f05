import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * A framework adapter was given options that do not name exactly one strategy source (`agent`,
 * `manifest` or `pluginId`), or options that do not go together. The same class and code
 * (`CTXKIT_CONFIG_INVALID`, category `user`) in every adapter; `details.adapter` names the factory,
 * `details.problem` what is wrong, and the message says the fix.
 */
export class AgentSourceError extends CtxkitError {
  constructor(adapter: string, problem: string, fix: string) {
    super({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `${adapter}: ${problem}.`,
      fix,
      details: { adapter, problem },
    });
  }
}
