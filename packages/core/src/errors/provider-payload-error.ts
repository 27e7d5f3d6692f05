import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** The fix of a payload that only a rule about the structure (pairs, roles) refuses. */
const STRUCTURE_FIX = 'This is a strategy bug (a split tool-call group or role order); the request was not sent.';

/**
 * A payload would be rejected by the provider (orphans, role order, leading tool message, a signed
 * thinking block whose prefix changed).
 */
export class ProviderPayloadError extends CtxkitError {
  /** @param fix what to do instead, when the problems call for more than the structural fix */
  constructor(provider: string, problems: string[], fix: string = STRUCTURE_FIX) {
    super({
      code: ErrorCodes.PROVIDER_PAYLOAD_INVALID,
      category: 'internal',
      message: `Refusing to send a payload ${provider} would reject: ${problems.join('; ')}.`,
      fix,
      details: { provider, problems },
    });
  }
}
