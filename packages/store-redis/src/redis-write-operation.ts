import type { StoreKey } from '@ctxkit/core';

/**
 * One write in an atomic batch ({@link RedisContextStore.writeAtomically}): all of a batch's writes
 * become visible together, or none do.
 */
export type RedisWriteOperation =
  | { op: 'set'; key: StoreKey; value: unknown }
  | { op: 'delete'; key: StoreKey }
  | { op: 'putBlob'; key: StoreKey; data: string | Uint8Array }
  | { op: 'appendBlob'; key: StoreKey; data: string | Uint8Array }
  | { op: 'deleteBlob'; key: StoreKey };
