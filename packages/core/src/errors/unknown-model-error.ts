import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** The model registry is strict: an unknown model is an error, never a guess. */
export class UnknownModelError extends CtxkitError {
  constructor(model: string, known: readonly string[]) {
    super({
      code: ErrorCodes.UNKNOWN_MODEL,
      category: 'user',
      message: `Unknown model "${model}": its context window is not registered.`,
      fix:
        `Register it: runtime.models.register({ id: "${model}", contextWindow, maxOutputTokens, encoding }) or ` +
        `createContextRuntime({ models: [...] }), or set maxContextTokens in the strategy config.`,
      details: { model, known: [...known].slice(0, 50) },
    });
  }
}
