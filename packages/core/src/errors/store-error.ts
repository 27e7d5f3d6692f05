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
