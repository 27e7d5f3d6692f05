import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** An id, entry, ref or store key would escape its directory or is not of the allowed form. */
export class UnsafePathError extends CtxkitError {
  constructor(what: string, value: string, rule: string) {
    super({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `Unsafe ${what} ${JSON.stringify(value)}: ${rule}.`,
      fix: 'Use lowercase letters, digits and "-" for ids; keep plugin entries inside the plugin directory.',
      details: { what, value, rule },
    });
  }
}
