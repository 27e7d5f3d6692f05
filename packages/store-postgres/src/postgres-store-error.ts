import { StoreError } from '@ctxkit/core';

/** The `store` every StoreError of this package names. */
export const POSTGRES_STORE_NAME = 'postgres';

/** A StoreError (`CTXKIT_STORE_ERROR`) of this store: `operation` on `key` failed because of `problem`. */
export function postgresStoreError(operation: string, key: string, problem: string, cause?: unknown): StoreError {
  return new StoreError(POSTGRES_STORE_NAME, operation, key, problem, cause);
}
