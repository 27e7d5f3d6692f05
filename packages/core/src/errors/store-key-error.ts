import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A store key part contains a path separator, `..`, or characters outside the allowed set. */
export class StoreKeyError extends CtxkitError {
  constructor(part: string, value: string) {
    super({
      code: ErrorCodes.STORE_KEY_INVALID,
      category: 'user',
      message: `Invalid store key ${part} ${JSON.stringify(value)}.`,
      fix: 'Use 1-200 characters from [A-Za-z0-9._:@-], not starting with "." (no "/", "\\" or "..").',
      details: { part, value },
    });
  }
}
