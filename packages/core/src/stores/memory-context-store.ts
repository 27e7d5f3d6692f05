import type {
  BlobRange,
  IContextStore,
  StoreKey,
  StoreKeyPrefix,
  VersionedSetResult,
  VersionedValue,
} from '../contracts/context-store';
import { StoreError } from '../errors/store-error';
import { toBlobBytes } from './blob-bytes';
import { resolveBlobRange } from './blob-range';
import { assertStoreKey, assertStoreKeyPrefix, compareStoreKeys, formatStoreKey, storeKeyMatches } from './store-key';

/** Options of {@link MemoryContextStore}. */
export interface MemoryContextStoreOptions {
  /**
   * Size of the chunks `readBlob` yields, in bytes.
   * @default 65536
   */
  chunkSize?: number;
}

interface StoredValue {
  key: StoreKey;
  value: unknown;
  /** The store's write count when this value was written: unique for the life of the store. */
  version: string;
}

interface StoredBlob {
  key: StoreKey;
  /** Appended pieces, concatenated on read; an append never copies what is already stored. */
  chunks: Uint8Array[];
  size: number;
}

const DEFAULT_CHUNK_SIZE = 64 * 1024;

/**
 * The embedded default store: everything in process memory, gone when the process ends.
 *
 * JSON values are deep-cloned with `structuredClone` on the way in and on the way out, so neither
 * the writer nor a reader can change what another reader sees. Blobs are bytes, streamed in chunks
 * of `chunkSize`, and honour byte ranges. Keys are validated with `assertStoreKey`.
 *
 * Compare-and-set: every write (`set`, a successful `setIfVersion`) gives the value a new version, the
 * store's write count, never reused; `setIfVersion` checks and writes without yielding, so it is
 * atomic among all callers in the process.
 *
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid key, from every method
 * @throws StoreError (`CTXKIT_STORE_ERROR`) for a value that cannot be cloned, a missing blob on
 *   `readBlob`, an invalid byte range
 * @see docs/09-stores.md
 */
export class MemoryContextStore implements IContextStore {
  readonly name = 'memory';
  private readonly values = new Map<string, StoredValue>();
  private readonly blobs = new Map<string, StoredBlob>();
  private readonly chunkSize: number;
  private writes = 0;

  constructor(options: MemoryContextStoreOptions = {}) {
    this.chunkSize = options.chunkSize && options.chunkSize > 0 ? Math.floor(options.chunkSize) : DEFAULT_CHUNK_SIZE;
  }

  async get<T = unknown>(key: StoreKey): Promise<T | undefined> {
    assertStoreKey(key);
    const entry = this.values.get(formatStoreKey(key));
    return entry === undefined ? undefined : (structuredClone(entry.value) as T);
  }

  async set(key: StoreKey, value: unknown): Promise<void> {
    assertStoreKey(key);
    this.write(key, this.copyIn('set', key, value));
  }

  async getVersioned<T = unknown>(key: StoreKey): Promise<VersionedValue<T> | undefined> {
    assertStoreKey(key);
    const entry = this.values.get(formatStoreKey(key));
    return entry === undefined ? undefined : { value: structuredClone(entry.value) as T, version: entry.version };
  }

  async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined): Promise<VersionedSetResult> {
    assertStoreKey(key);
    const copy = this.copyIn('setIfVersion', key, value);
    // No await between the check and the write: no other caller can run in between.
    const entry = this.values.get(formatStoreKey(key));
    if (entry?.version !== expectedVersion) {
      return {
        ok: false,
        current: entry === undefined ? undefined : { value: structuredClone(entry.value), version: entry.version },
      };
    }
    return { ok: true, version: this.write(key, copy) };
  }

  async delete(key: StoreKey): Promise<boolean> {
    assertStoreKey(key);
    return this.values.delete(formatStoreKey(key));
  }

  async list(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    assertStoreKeyPrefix(prefix);
    return [...this.values.values()]
      .filter((entry) => storeKeyMatches(entry.key, prefix))
      .map((entry) => ({ ...entry.key }))
      .sort(compareStoreKeys);
  }

  async putBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    assertStoreKey(key);
    const bytes = this.bytes('putBlob', key, data);
    this.blobs.set(formatStoreKey(key), { key: { ...key }, chunks: bytes.length ? [bytes] : [], size: bytes.length });
    return { byteSize: bytes.length };
  }

  async appendBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    assertStoreKey(key);
    const bytes = this.bytes('appendBlob', key, data);
    const id = formatStoreKey(key);
    const blob = this.blobs.get(id) ?? { key: { ...key }, chunks: [], size: 0 };
    if (bytes.length) blob.chunks.push(bytes);
    blob.size += bytes.length;
    this.blobs.set(id, blob);
    return { byteSize: blob.size };
  }

  readBlob(key: StoreKey, range?: BlobRange): AsyncIterable<Uint8Array> {
    assertStoreKey(key);
    const id = formatStoreKey(key);
    const blobs = this.blobs;
    const chunkSize = this.chunkSize;
    const name = this.name;
    return {
      async *[Symbol.asyncIterator]() {
        const blob = blobs.get(id);
        if (!blob) throw new StoreError(name, 'readBlob', id, 'no such blob');
        const resolved = resolveBlobRange(range, blob.size);
        if (!resolved) throw new StoreError(name, 'readBlob', id, `invalid byte range ${JSON.stringify(range)}`);
        // Snapshot the chunk list: an append during the read does not change what this read yields.
        const chunks = [...blob.chunks];
        let offset = 0;
        for (const chunk of chunks) {
          const chunkStart = offset;
          const chunkEnd = offset + chunk.length;
          offset = chunkEnd;
          if (chunkEnd <= resolved.start) continue;
          if (chunkStart >= resolved.end) break;
          const from = Math.max(resolved.start, chunkStart) - chunkStart;
          const to = Math.min(resolved.end, chunkEnd) - chunkStart;
          for (let at = from; at < to; at += chunkSize) {
            yield chunk.slice(at, Math.min(at + chunkSize, to));
          }
        }
      },
    };
  }

  async blobSize(key: StoreKey): Promise<number | undefined> {
    assertStoreKey(key);
    return this.blobs.get(formatStoreKey(key))?.size;
  }

  async deleteBlob(key: StoreKey): Promise<boolean> {
    assertStoreKey(key);
    return this.blobs.delete(formatStoreKey(key));
  }

  async listBlobs(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    assertStoreKeyPrefix(prefix);
    return [...this.blobs.values()]
      .filter((blob) => storeKeyMatches(blob.key, prefix))
      .map((blob) => ({ ...blob.key }))
      .sort(compareStoreKeys);
  }

  /** Nothing to release; present so that callers can close any store alike. */
  async close(): Promise<void> {}

  /** Validates and clones a value on its way in. */
  private copyIn(operation: string, key: StoreKey, value: unknown): unknown {
    const id = formatStoreKey(key);
    if (value === undefined)
      throw new StoreError(this.name, operation, id, 'the value is undefined (use delete to remove a key)');
    try {
      return structuredClone(value);
    } catch (cause) {
      throw new StoreError(this.name, operation, id, 'the value cannot be cloned (store JSON data only)', cause);
    }
  }

  /** Stores an already cloned value under a new version, and returns the version. */
  private write(key: StoreKey, copy: unknown): string {
    this.writes += 1;
    const version = String(this.writes);
    this.values.set(formatStoreKey(key), { key: { ...key }, value: copy, version });
    return version;
  }

  private bytes(operation: string, key: StoreKey, data: string | Uint8Array): Uint8Array {
    try {
      return toBlobBytes(data);
    } catch (cause) {
      throw new StoreError(
        this.name,
        operation,
        formatStoreKey(key),
        'blob data must be a string or a Uint8Array',
        cause,
      );
    }
  }
}
