import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A payload would be rejected by the provider (orphans, role order, leading tool message). */
export class ProviderPayloadError extends CtxkitError {
  constructor(provider: string, problems: string[]) {
    super({
      code: ErrorCodes.PROVIDER_PAYLOAD_INVALID,
      category: 'internal',
      message: `Refusing to send a payload ${provider} would reject: ${problems.join('; ')}.`,
      fix: 'This is a strategy bug (a split tool-call group or role order); the request was not sent.',
      details: { provider, problems },
    });
  }
}
