import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, createReadStream, fstatSync, mkdirSync, openSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';

import type {
  BlobRange,
  IContextStore,
  StoreKey,
  StoreKeyPrefix,
  StoreKind,
  VersionedSetResult,
  VersionedValue,
} from '../contracts/context-store';
import { StoreError } from '../errors/store-error';
import { toBlobBytes } from './blob-bytes';
import { resolveBlobRange } from './blob-range';
import { withFileLock } from './in-process-file-lock';
import { assertStoreKey, assertStoreKeyPrefix, compareStoreKeys, formatStoreKey, STORE_KINDS } from './store-key';
import { decodeStoreKeyPart, encodeStoreKeyPart } from './store-key-part-encoding';

/** Options of {@link FileContextStore}. */
export interface FileContextStoreOptions {
  /** Directory that holds everything the store writes. Created on first write. */
  rootDir: string;
  /**
   * Flush file contents to disk (`fsync`) before the rename that publishes them. Slower, but a
   * value survives a power loss once `set` has resolved.
   * @default false
   */
  fsync?: boolean;
  /**
   * `highWaterMark` of the read streams behind `readBlob`, in bytes.
   * @default 65536
   */
  chunkSize?: number;
}

const VALUES_DIR = 'values';
const BLOBS_DIR = 'blobs';
const VALUE_SUFFIX = '.json';

/**
 * The embedded persistent store: one file per value or blob under `rootDir`.
 *
 * Layout: `values/<agentId>/<sessionId>/<kind>/<name>.json` and
 * `blobs/<agentId>/<sessionId>/<kind>/<name>`, each part in its stored form (`encodeStoreKeyPart`), so a key
 * never leaves `rootDir`.
 *
 * Writes are atomic: the new content goes to a temporary file in the same directory (named with a
 * leading `.`, which no key part may have, so listings never see it), which is then renamed over
 * the old file. A write that fails at any step removes its temporary file and leaves the previous
 * value intact. `appendBlob` appends in place through one descriptor opened with O_APPEND, which also
 * gives the new size, synchronously (see `appendInPlace`); the blob's directory is made only when the
 * open finds it missing.
 * `readBlob` streams the file with `fs.createReadStream`, honouring byte ranges.
 *
 * Compare-and-set: a value's version is the SHA-256 of its file's text. `setIfVersion` reads, compares
 * and writes while holding a lock on the value's file that `set` and `delete` take too, so among the
 * callers in one process exactly one of several writers expecting the same version succeeds. The lock
 * does not reach other processes: for several processes on one session use a shared store that
 * checks on its side (`RedisContextStore`).
 *
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid key, from every method
 * @throws StoreError (`CTXKIT_STORE_ERROR`) for I/O failures, unparsable files, values that are not
 *   JSON, a missing blob on `readBlob`, an invalid byte range
 * @see docs/09-stores.md
 */
export class FileContextStore implements IContextStore {
  readonly name = 'file';
  readonly rootDir: string;
  private readonly fsync: boolean;
  private readonly chunkSize: number;

  constructor(options: FileContextStoreOptions) {
    if (!options || typeof options.rootDir !== 'string' || options.rootDir.length === 0) {
      throw new StoreError('file', 'open', '(none)', 'the rootDir option is required');
    }
    this.rootDir = path.resolve(options.rootDir);
    this.fsync = options.fsync ?? false;
    this.chunkSize = options.chunkSize && options.chunkSize > 0 ? Math.floor(options.chunkSize) : 64 * 1024;
  }

  async get<T = unknown>(key: StoreKey): Promise<T | undefined> {
    assertStoreKey(key);
    const text = await this.readValueText('get', key);
    return text === undefined ? undefined : this.parse<T>('get', key, text);
  }

  async set(key: StoreKey, value: unknown): Promise<void> {
    assertStoreKey(key);
    const text = this.serialize('set', key, value);
    const file = this.valuePath(key);
    await withFileLock(file, () => this.writeAtomic('set', key, file, text));
  }

  async delete(key: StoreKey): Promise<boolean> {
    assertStoreKey(key);
    const file = this.valuePath(key);
    return withFileLock(file, () => this.unlink('delete', key, file));
  }

  async getVersioned<T = unknown>(key: StoreKey): Promise<VersionedValue<T> | undefined> {
    assertStoreKey(key);
    const text = await this.readValueText('getVersioned', key);
    return text === undefined
      ? undefined
      : { value: this.parse<T>('getVersioned', key, text), version: textVersion(text) };
  }

  async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined): Promise<VersionedSetResult> {
    assertStoreKey(key);
    const text = this.serialize('setIfVersion', key, value);
    const file = this.valuePath(key);
    return withFileLock(file, async () => {
      const stored = await this.readValueText('setIfVersion', key);
      const storedVersion = stored === undefined ? undefined : textVersion(stored);
      if (storedVersion !== expectedVersion) {
        return {
          ok: false,
          current:
            stored === undefined
              ? undefined
              : { value: this.parse('setIfVersion', key, stored), version: textVersion(stored) },
        };
      }
      await this.writeAtomic('setIfVersion', key, file, text);
      return { ok: true, version: textVersion(text) };
    });
  }

  async list(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    assertStoreKeyPrefix(prefix);
    const keys: StoreKey[] = [];
    for (const { sessionId, kind, dir } of await this.kindDirs(VALUES_DIR, prefix)) {
      for (const file of await this.readDir(dir)) {
        if (file.startsWith('.') || !file.endsWith(VALUE_SUFFIX)) continue;
        keys.push({
          agentId: prefix.agentId,
          sessionId,
          kind,
          name: decodeStoreKeyPart(file.slice(0, -VALUE_SUFFIX.length)),
        });
      }
    }
    return keys.sort(compareStoreKeys);
  }

  async putBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    assertStoreKey(key);
    const bytes = this.bytes('putBlob', key, data);
    await this.writeAtomic('putBlob', key, this.blobPath(key), bytes);
    return { byteSize: bytes.length };
  }

  async appendBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    assertStoreKey(key);
    const bytes = this.bytes('appendBlob', key, data);
    try {
      return { byteSize: appendInPlace(this.blobPath(key), bytes) };
    } catch (cause) {
      throw this.failure('appendBlob', key, 'cannot append to the blob file', cause);
    }
  }

  readBlob(key: StoreKey, range?: BlobRange): AsyncIterable<Uint8Array> {
    assertStoreKey(key);
    const file = this.blobPath(key);
    const store = this;
    return {
      async *[Symbol.asyncIterator]() {
        let size: number;
        try {
          size = (await fsp.stat(file)).size;
        } catch (cause) {
          if (isNotFound(cause)) throw store.failure('readBlob', key, 'no such blob');
          throw store.failure('readBlob', key, 'cannot read the blob file', cause);
        }
        const resolved = resolveBlobRange(range, size);
        if (!resolved) throw store.failure('readBlob', key, `invalid byte range ${JSON.stringify(range)}`);
        if (resolved.end <= resolved.start) return;
        // createReadStream's `end` is inclusive; ours is exclusive.
        const stream = createReadStream(file, {
          start: resolved.start,
          end: resolved.end - 1,
          highWaterMark: store.chunkSize,
        });
        try {
          for await (const chunk of stream) yield new Uint8Array(chunk as Buffer);
        } catch (cause) {
          throw store.failure('readBlob', key, 'the read stream failed', cause);
        } finally {
          stream.destroy();
        }
      },
    };
  }

  async blobSize(key: StoreKey): Promise<number | undefined> {
    assertStoreKey(key);
    try {
      return (await fsp.stat(this.blobPath(key))).size;
    } catch (cause) {
      if (isNotFound(cause)) return undefined;
      throw this.failure('blobSize', key, 'cannot stat the blob file', cause);
    }
  }

  async deleteBlob(key: StoreKey): Promise<boolean> {
    assertStoreKey(key);
    return this.unlink('deleteBlob', key, this.blobPath(key));
  }

  async listBlobs(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    assertStoreKeyPrefix(prefix);
    const keys: StoreKey[] = [];
    for (const { sessionId, kind, dir } of await this.kindDirs(BLOBS_DIR, prefix)) {
      for (const file of await this.readDir(dir)) {
        if (file.startsWith('.')) continue;
        keys.push({ agentId: prefix.agentId, sessionId, kind, name: decodeStoreKeyPart(file) });
      }
    }
    return keys.sort(compareStoreKeys);
  }

  /** Nothing to release (every operation opens and closes its own files). */
  async close(): Promise<void> {}

  /** The text of a value's file, or `undefined` when there is none. */
  private async readValueText(operation: string, key: StoreKey): Promise<string | undefined> {
    try {
      return await fsp.readFile(this.valuePath(key), 'utf8');
    } catch (cause) {
      if (isNotFound(cause)) return undefined;
      throw this.failure(operation, key, 'cannot read the value file', cause);
    }
  }

  private parse<T>(operation: string, key: StoreKey, text: string): T {
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw this.failure(operation, key, 'the value file is not valid JSON', cause);
    }
  }

  private serialize(operation: string, key: StoreKey, value: unknown): string {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (cause) {
      throw this.failure(operation, key, 'the value cannot be serialized as JSON', cause);
    }
    if (text === undefined) throw this.failure(operation, key, 'the value is not JSON (undefined or a function)');
    return text;
  }

  private valuePath(key: StoreKey): string {
    return path.join(
      this.rootDir,
      VALUES_DIR,
      encodeStoreKeyPart(key.agentId),
      encodeStoreKeyPart(key.sessionId),
      key.kind,
      encodeStoreKeyPart(key.name) + VALUE_SUFFIX,
    );
  }

  private blobPath(key: StoreKey): string {
    return path.join(
      this.rootDir,
      BLOBS_DIR,
      encodeStoreKeyPart(key.agentId),
      encodeStoreKeyPart(key.sessionId),
      key.kind,
      encodeStoreKeyPart(key.name),
    );
  }

  /** Writes to `.<base>.<random>.tmp` beside `file`, then renames it over `file`. */
  private async writeAtomic(operation: string, key: StoreKey, file: string, data: string | Uint8Array): Promise<void> {
    const dir = path.dirname(file);
    const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await fsp.mkdir(dir, { recursive: true });
      const handle = await fsp.open(temp, 'wx');
      try {
        await handle.writeFile(data);
        if (this.fsync) await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(temp, file);
    } catch (cause) {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      throw this.failure(operation, key, 'the write did not complete; the previous value is unchanged', cause);
    }
  }

  private async unlink(operation: string, key: StoreKey, file: string): Promise<boolean> {
    try {
      await fsp.unlink(file);
      return true;
    } catch (cause) {
      if (isNotFound(cause)) return false;
      throw this.failure(operation, key, 'cannot remove the file', cause);
    }
  }

  /** The `<kind>` directories under `area/<agentId>` that match the prefix. */
  private async kindDirs(
    area: string,
    prefix: StoreKeyPrefix,
  ): Promise<Array<{ sessionId: string; kind: StoreKind; dir: string }>> {
    const agentDir = path.join(this.rootDir, area, encodeStoreKeyPart(prefix.agentId));
    const sessions =
      prefix.sessionId !== undefined
        ? [prefix.sessionId]
        : (await this.readDir(agentDir)).filter((name) => !name.startsWith('.')).map(decodeStoreKeyPart);
    const kinds = prefix.kind !== undefined ? [prefix.kind] : STORE_KINDS;
    const dirs: Array<{ sessionId: string; kind: StoreKind; dir: string }> = [];
    for (const sessionId of sessions) {
      for (const kind of kinds)
        dirs.push({ sessionId, kind, dir: path.join(agentDir, encodeStoreKeyPart(sessionId), kind) });
    }
    return dirs;
  }

  private async readDir(dir: string): Promise<string[]> {
    try {
      return await fsp.readdir(dir);
    } catch (cause) {
      if (isNotFound(cause) || (cause as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw new StoreError(this.name, 'list', dir, 'cannot read the directory', cause);
    }
  }

  private bytes(operation: string, key: StoreKey, data: string | Uint8Array): Uint8Array {
    try {
      return toBlobBytes(data);
    } catch (cause) {
      throw this.failure(operation, key, 'blob data must be a string or a Uint8Array', cause);
    }
  }

  private failure(operation: string, key: StoreKey, problem: string, cause?: unknown): StoreError {
    return new StoreError(this.name, operation, formatStoreKey(key), problem, cause);
  }
}

/** The version of a value: the SHA-256 of its file's text. */
function textVersion(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Appends `bytes` to `file` through one descriptor opened with O_APPEND and returns the file's new size. Synchronous:
 * appends are small (a session trace's or a recall log's lines) and go to the page cache, where the open, write,
 * size and close take about 6 µs together, and the same four calls as thread-pool round trips took 100–150 µs of
 * CPU on every append (pino's file destination writes synchronously for the same reason). The directory is made
 * only when the open finds it missing.
 */
function appendInPlace(file: string, bytes: Uint8Array): number {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'a');
  } catch (cause) {
    if (!isNotFound(cause)) throw cause;
    mkdirSync(path.dirname(file), { recursive: true });
    descriptor = openSync(file, 'a');
  }
  try {
    appendFileSync(descriptor, bytes);
    return fstatSync(descriptor).size;
  } finally {
    closeSync(descriptor);
  }
}
