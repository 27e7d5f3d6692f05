import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A store operation failed (I/O, connection, missing blob). Nothing was half-written. */
export class StoreError extends CtxkitError {
  constructor(store: string, operation: string, key: string, problem: string, cause?: unknown) {
    super({
      code: ErrorCodes.STORE_ERROR,
      category: 'internal',
      message: `${store} store: ${operation} ${key} failed: ${problem}.`,
      fix: 'Check that the store is reachable and writable; the previous value is unchanged.',
      details: { store, operation, key, problem },
      cause,
    });
  }
}

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
