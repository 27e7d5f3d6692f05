import type { IRecallBackend } from './recall-backend';

/** What a stored value is for. Part of every key, so kinds never collide. */
export type StoreKind = 'summary' | 'entities' | 'tool-output' | 'transcript' | 'state' | 'recall';

/**
 * A store key: state is keyed by agent and session so that one conversation never sees another's.
 * Every part is validated (see `assertStoreKey`): no path separators, no `..`.
 */
export interface StoreKey {
  agentId: string;
  sessionId: string;
  kind: StoreKind;
  name: string;
}

/** A prefix to list keys: an agent, optionally one session, optionally one kind. */
export interface StoreKeyPrefix {
  agentId: string;
  sessionId?: string;
  kind?: StoreKind;
}

/** Byte range of a blob read, `end` exclusive. */
export interface BlobRange {
  start?: number;
  end?: number;
}

/**
 * A JSON value and the version the store holds it at, as {@link IContextStore.getVersioned} reads
 * them.
 */
export interface VersionedValue<T = unknown> {
  value: T;
  /**
   * Opaque; compare for equality only. A write that changes the stored value gives it a new version;
   * a store may keep the version when an identical value is written again (the file and Redis stores
   * derive it from the stored JSON text).
   */
  version: string;
}

/**
 * What {@link IContextStore.setIfVersion} answers: the write happened (`ok: true`, with the new
 * version), or it did not because the stored value is no longer the expected one (`ok: false`, with
 * what is stored now, `undefined` when nothing is).
 */
export type VersionedSetResult = { ok: true; version: string } | { ok: false; current: VersionedValue | undefined };

/**
 * One store for summaries, entity state, cached tool outputs and transcripts.
 * JSON values are cloned in and out; blobs are bytes, read as streams so that a 100 MB output is
 * never held twice.
 *
 * Optimistic concurrency: `getVersioned` and `setIfVersion` let several writers (instances, processes)
 * update one value without losing each other's writes: read the value with its version, compute the
 * new value, write it only if the version is still the one read; when the write is refused, read
 * again and merge or redo. They are optional, so that stores written before them keep working; a
 * store has both or neither. Strategies fall back to `get`/`set` on a store without them, where two
 * processes writing one session at once can overwrite each other's update (see docs/09-stores.md,
 * "Several processes, one session").
 */
export interface IContextStore {
  readonly name: string;
  get<T = unknown>(key: StoreKey): Promise<T | undefined>;
  set(key: StoreKey, value: unknown): Promise<void>;
  delete(key: StoreKey): Promise<boolean>;
  list(prefix: StoreKeyPrefix): Promise<StoreKey[]>;

  /**
   * Reads a JSON value with its version, or `undefined` when absent. The value and the version are
   * read together: the version is the one of the value returned.
   */
  getVersioned?<T = unknown>(key: StoreKey): Promise<VersionedValue<T> | undefined>;
  /**
   * Compare-and-set: writes `value` only if the stored value is still at `expectedVersion`
   * (`undefined`: only if the key is absent, i.e. create). Atomic: of several writers that expect the
   * same version, exactly one succeeds. A `set` or `delete` in between that changes the value changes
   * the version too, so the write is refused after it.
   * @returns `{ ok: true, version }` with the new version, or `{ ok: false, current }` with what is
   *   stored now (`undefined` when absent) and nothing written
   */
  setIfVersion?(key: StoreKey, value: unknown, expectedVersion: string | undefined): Promise<VersionedSetResult>;

  /** Stores bytes (a string is stored as UTF-8). Replaces an existing blob. */
  putBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }>;
  /** Appends bytes to a blob, creating it when absent (transcripts). */
  appendBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }>;
  /** Streams a blob (or a byte range of it) in chunks. Throws StoreError when absent. */
  readBlob(key: StoreKey, range?: BlobRange): AsyncIterable<Uint8Array>;
  /** Size in bytes, or `undefined` when absent. */
  blobSize(key: StoreKey): Promise<number | undefined>;
  deleteBlob(key: StoreKey): Promise<boolean>;
  listBlobs(prefix: StoreKeyPrefix): Promise<StoreKey[]>;

  /**
   * The store's own recall backend, for stores with a search of their own (PostgreSQL full-text
   * search). Without it, recall logs are JSON lines in a blob of this store (kind `recall`).
   */
  recallBackend?(): IRecallBackend;

  /** Closes connections. Safe to call more than once. */
  close?(): Promise<void>;
}
