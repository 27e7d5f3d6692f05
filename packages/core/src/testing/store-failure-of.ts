import { CtxkitError } from '../errors/ctxkit-error';

/**
 * The typed error a store call fails with, whether it throws synchronously, rejects, or fails while
 * its stream is read (a lazy stream reports a missing blob on first read).
 * @throws Error when the call succeeds, or fails with something other than a {@link CtxkitError}
 */
export async function storeFailureOf(run: () => unknown): Promise<CtxkitError> {
  try {
    const result = run();
    if (result && typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
      for await (const _chunk of result as AsyncIterable<unknown>) {
        // drained only to reach the failure
      }
    } else {
      await result;
    }
  } catch (error) {
    if (CtxkitError.isInstance(error)) return error;
    throw new Error(`expected the store call to fail with a CtxkitError, but it failed with ${String(error)}`);
  }
  throw new Error('expected the store call to fail, but it succeeded');
}
