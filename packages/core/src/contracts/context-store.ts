/** What a stored value is for. Part of every key, so kinds never collide. */
export type StoreKind = 'summary' | 'entities' | 'tool-output' | 'transcript' | 'state';

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
 * One store for summaries, entity state, cached tool outputs and transcripts.
 * JSON values are cloned in and out; blobs are bytes, read as streams so that a 100 MB output is
 * never held twice.
 */
export interface IContextStore {
  readonly name: string;
  get<T = unknown>(key: StoreKey): Promise<T | undefined>;
  set(key: StoreKey, value: unknown): Promise<void>;
  delete(key: StoreKey): Promise<boolean>;
  list(prefix: StoreKeyPrefix): Promise<StoreKey[]>;

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

  /** Closes connections. Safe to call more than once. */
  close?(): Promise<void>;
}
