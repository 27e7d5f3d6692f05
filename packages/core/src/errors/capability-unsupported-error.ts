import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A session was asked for something its strategy does not offer (a preview, an undo). */
export class CapabilityUnsupportedError extends CtxkitError {
  constructor(strategyId: string, capability: string) {
    super({
      code: ErrorCodes.CAPABILITY_UNSUPPORTED,
      category: 'user',
      message: `Strategy ${strategyId} does not offer ${capability}().`,
      fix:
        `Use a strategy that implements ${capability}() (every standard strategy does), or add it to this ` +
        `strategy: see docs/06-writing-a-strategy.md.`,
      details: { strategyId, capability },
    });
  }
}
