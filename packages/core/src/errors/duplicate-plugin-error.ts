import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** Two plugins declare the same id. Names both sources. */
export class DuplicatePluginError extends CtxkitError {
  constructor(pluginId: string, first: string, second: string) {
    super({
      code: ErrorCodes.DUPLICATE_PLUGIN,
      category: 'plugin',
      message: `Plugin id "${pluginId}" is declared twice: ${first} and ${second}.`,
      fix: 'Give each plugin a unique id (third-party plugins should carry their own prefix).',
      details: { pluginId, sources: [first, second] },
    });
  }
}
