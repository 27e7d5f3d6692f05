import { createHash } from 'node:crypto';

import type {
  BlobRange,
  IContextStore,
  StoreKey,
  StoreKeyPrefix,
  VersionedSetResult,
  VersionedValue,
} from '@ctxkit/core';
import { CtxkitError, StoreError } from '@ctxkit/core';
import { formatStoreKey } from '@ctxkit/core/strategy-kit';
import { Redis } from 'ioredis';

import { DEFAULT_REDIS_KEY_PREFIX, RedisKeyLayout } from './redis-key-layout';
import type { RedisWriteOperation } from './redis-write-operation';

/** Options of {@link RedisContextStore}. */
export interface RedisContextStoreOptions {
  /**
   * An ioredis client to use. The store does not close a client it was given unless `closeClient`
   * is true. When absent, the store creates one from `url`.
   */
  client?: Redis;
  /**
   * Where the server is, e.g. `redis://:password@redis.internal:6379/2`.
   * @default process.env.REDIS_URL, else 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * First segment of every key, so that several applications can share one server.
   * @default 'ctxkit'
   */
  keyPrefix?: string;
  /**
   * Size of the chunks `readBlob` yields, in bytes; each chunk is one `GETRANGE`.
   * @default 1048576 (1 MiB)
   */
  chunkSize?: number;
  /**
   * Reply timeout of every command, in milliseconds (only for a client the store creates).
   * @default 10000
   */
  commandTimeoutMs?: number;
  /**
   * Whether `close()` closes the client.
   * @default true for a client the store created, false for a given one
   */
  closeClient?: boolean;
  /**
   * Expire every key this many seconds after its last write (`SET … EX`, `EXPIRE` after `APPEND`), so
   * that abandoned conversations do not accumulate on a shared server. Reads do not extend it.
   * @default undefined (keys never expire)
   */
  ttlSeconds?: number;
}

/** `readBlob` chunk size unless configured: 1 MiB. */
export const DEFAULT_REDIS_CHUNK_SIZE = 1024 * 1024;
/** Where the store connects when neither `client` nor `url` nor `REDIS_URL` is given. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
const SCAN_COUNT = 1000;
const STORE_NAME = 'redis';

/**
 * Compare-and-set, run by the server as one script (nothing runs in between): KEYS[1] the value key;
 * ARGV[1] the expected version ('' for absent), ARGV[2] the JSON text, ARGV[3] the TTL in seconds
 * ('' for none). A version is the SHA-1 of the stored text. Answers {1} when written, {0} when the key
 * is absent, {0, text} with the stored text otherwise.
 */
const SET_IF_VERSION_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  if ARGV[1] == '' or redis.sha1hex(current) ~= ARGV[1] then return {0, current} end
elseif ARGV[1] ~= '' then
  return {0}
end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return {1}
`;

/** The version of a stored value: the SHA-1 of its JSON text, as the script computes it. */
function textVersion(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

function errorText(cause: unknown): string {
  if (cause instanceof Error) return cause.message || cause.name;
  return String(cause);
}

/** Failures that mean the server cannot be reached, rather than a reply to a command. */
function isConnectionFailure(cause: unknown): boolean {
  const text =
    `${(cause as { name?: string })?.name ?? ''} ${(cause as { code?: string })?.code ?? ''} ` + `${errorText(cause)}`;
  return new RegExp(
    String.raw`ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|Connection is closed|MaxR` +
      String.raw`etriesPerRequest|Command timed out|connect|Stream isn't writeable|socket`,
    'i',
  ).test(text);
}

function toBuffer(data: string | Uint8Array): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return Buffer.from(data);
  throw new TypeError('blob data must be a string or a Uint8Array');
}

/**
 * The distributed store: summaries, entity state, cached tool outputs and transcripts in
 * Redis, so that many agent processes on many machines share one conversation's state.
 *
 * - Keys: `{prefix}:{agentId}:{sessionId}:{kind}:{name}` for JSON values, the same plus `:blob` for
 *   blobs; every part is validated (`assertStoreKey`), `:` inside a part is written `%3A`.
 * - JSON values are serialised on the way in and parsed on the way out, so callers never share objects.
 * - Blobs are Redis strings: `putBlob` is one `SET`, `appendBlob` one `APPEND` (atomic, creates the
 *   blob), `readBlob` streams with `GETRANGE` in `chunkSize` pieces, so a range never loads the whole
 *   blob. A blob can hold up to Redis's 512 MB string limit.
 * - `list` and `listBlobs` use `SCAN` (never `KEYS`), sorted by key.
 * - {@link RedisContextStore.writeAtomically} applies several writes in one `MULTI`/`EXEC`.
 * - Compare-and-set: a value's version is the SHA-1 of its JSON text; `getVersioned` is one `GET`,
 *   `setIfVersion` one script (`EVAL`) that compares and writes on the server, so of several processes
 *   writing at the same version exactly one succeeds. Plain `set`, `delete` and `writeAtomically`
 *   change the version like any other write.
 * - The client the store creates never replays a command whose result is unknown after a
 *   reconnect (an `APPEND` must not run twice), and fails a command after one reconnect attempt
 *   instead of waiting forever: a lost server surfaces as a `StoreError` naming the redacted URL.
 *
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid key, from every method
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the server cannot be reached or replies with an
 *   error, for a value that is not JSON, a missing blob on `readBlob`, an invalid byte range, or use
 *   after `close()`
 * @see docs/09-stores.md
 */
export class RedisContextStore implements IContextStore {
  readonly name = STORE_NAME;
  /** The key layout, with the configured prefix. */
  readonly layout: RedisKeyLayout;
  private readonly client: Redis;
  private readonly url: string;
  private readonly chunkSize: number;
  private readonly closeClient: boolean;
  private readonly ttlSeconds: number | undefined;
  private closed = false;
  private lastConnectionError: string | undefined;

  constructor(options: RedisContextStoreOptions = {}) {
    this.layout = new RedisKeyLayout(options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
    if (options.ttlSeconds !== undefined && !(Number.isInteger(options.ttlSeconds) && options.ttlSeconds > 0)) {
      throw new StoreError(
        STORE_NAME,
        'configure',
        '(options)',
        `ttlSeconds must be a positive integer (got ${String(options.ttlSeconds)})`,
      );
    }
    this.ttlSeconds = options.ttlSeconds;
    this.chunkSize =
      options.chunkSize !== undefined && Number.isInteger(options.chunkSize) && options.chunkSize > 0
        ? options.chunkSize
        : DEFAULT_REDIS_CHUNK_SIZE;
    if (options.client) {
      this.client = options.client;
      const { host, port, db } = options.client.options;
      this.url = `redis://${host ?? '127.0.0.1'}:${port ?? 6379}/${db ?? 0}`;
      this.closeClient = options.closeClient ?? false;
    } else {
      this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
      try {
        this.client = new Redis(this.url, {
          lazyConnect: true,
          connectionName: 'ctxkit-store',
          connectTimeout: 5000,
          commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
          maxRetriesPerRequest: 1,
          autoResendUnfulfilledCommands: false,
          retryStrategy: (times) => Math.min(100 * times, 2000),
        });
      } catch (cause) {
        throw new StoreError(
          STORE_NAME,
          'connect',
          redactUrl(this.url),
          `invalid Redis URL (${errorText(cause)})`,
          cause,
        );
      }
      this.closeClient = options.closeClient ?? true;
    }
    // ioredis reports connection trouble as 'error' events; without a listener Node prints them.
    // The store reports them through the StoreError of the command that failed instead.
    this.client.on('error', (error: unknown) => {
      this.lastConnectionError = errorText(error);
    });
  }

  async get<T = unknown>(key: StoreKey): Promise<T | undefined> {
    const redisKey = this.layout.valueKey(key);
    const text = await this.run('get', key, () => this.client.get(redisKey));
    return text === null ? undefined : this.parse<T>('get', key, text);
  }

  async set(key: StoreKey, value: unknown): Promise<void> {
    const redisKey = this.layout.valueKey(key);
    const text = this.serialize('set', key, value);
    await this.run('set', key, () => this.write(redisKey, text));
  }

  async getVersioned<T = unknown>(key: StoreKey): Promise<VersionedValue<T> | undefined> {
    const redisKey = this.layout.valueKey(key);
    const text = await this.run('getVersioned', key, () => this.client.get(redisKey));
    return text === null ? undefined : { value: this.parse<T>('getVersioned', key, text), version: textVersion(text) };
  }

  async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined): Promise<VersionedSetResult> {
    const redisKey = this.layout.valueKey(key);
    const text = this.serialize('setIfVersion', key, value);
    const reply = await this.run('setIfVersion', key, () =>
      this.client.eval(
        SET_IF_VERSION_SCRIPT,
        1,
        redisKey,
        expectedVersion ?? '',
        text,
        this.ttlSeconds === undefined ? '' : String(this.ttlSeconds),
      ),
    );
    const [written, current] = reply as [number, string | undefined];
    if (written === 1) return { ok: true, version: textVersion(text) };
    return {
      ok: false,
      current:
        current === undefined
          ? undefined
          : { value: this.parse('setIfVersion', key, current), version: textVersion(current) },
    };
  }

  async delete(key: StoreKey): Promise<boolean> {
    const redisKey = this.layout.valueKey(key);
    return (await this.run('delete', key, () => this.client.del(redisKey))) > 0;
  }

  async list(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    return this.scan('list', prefix, 'value');
  }

  async putBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    const redisKey = this.layout.blobKey(key);
    const bytes = this.bytes('putBlob', key, data);
    await this.run('putBlob', key, () => this.write(redisKey, bytes));
    return { byteSize: bytes.byteLength };
  }

  async appendBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    const redisKey = this.layout.blobKey(key);
    const bytes = this.bytes('appendBlob', key, data);
    const byteSize = await this.run('appendBlob', key, async () => {
      if (this.ttlSeconds === undefined) return this.client.append(redisKey, bytes);
      const result = await this.client.multi().append(redisKey, bytes).expire(redisKey, this.ttlSeconds).exec();
      if (result === null) throw new Error('the transaction was aborted');
      for (const [error] of result) if (error) throw error;
      return Number(result[0]?.[1]);
    });
    return { byteSize };
  }

  readBlob(key: StoreKey, range?: BlobRange): AsyncIterable<Uint8Array> {
    const redisKey = this.layout.blobKey(key);
    const id = formatStoreKey(key);
    return {
      [Symbol.asyncIterator]: () => this.streamBlob(redisKey, id, key, range),
    };
  }

  async blobSize(key: StoreKey): Promise<number | undefined> {
    const redisKey = this.layout.blobKey(key);
    const size = await this.sizeOf('blobSize', key, redisKey);
    return size;
  }

  async deleteBlob(key: StoreKey): Promise<boolean> {
    const redisKey = this.layout.blobKey(key);
    return (await this.run('deleteBlob', key, () => this.client.del(redisKey))) > 0;
  }

  async listBlobs(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    return this.scan('listBlobs', prefix, 'blob');
  }

  /**
   * Applies several writes in one `MULTI`/`EXEC` transaction: other clients see all of them or none,
   * and a connection lost before `EXEC` leaves nothing behind. Every key and value is validated
   * before anything is sent.
   * @returns the byte size of each blob written, in operation order (`undefined` for other operations)
   * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`), StoreError (`CTXKIT_STORE_ERROR`)
   */
  async writeAtomically(operations: readonly RedisWriteOperation[]): Promise<Array<number | undefined>> {
    const prepared = operations.map((operation) => {
      switch (operation.op) {
        case 'set':
          return {
            operation,
            redisKey: this.layout.valueKey(operation.key),
            payload: this.serialize('set', operation.key, operation.value),
          };
        case 'delete':
          return { operation, redisKey: this.layout.valueKey(operation.key), payload: undefined };
        case 'putBlob':
        case 'appendBlob':
          return {
            operation,
            redisKey: this.layout.blobKey(operation.key),
            payload: this.bytes(operation.op, operation.key, operation.data),
          };
        case 'deleteBlob':
          return { operation, redisKey: this.layout.blobKey(operation.key), payload: undefined };
        default:
          throw new StoreError(
            STORE_NAME,
            'writeAtomically',
            '(batch)',
            `unknown operation ${JSON.stringify((operation as { op?: unknown }).op)}`,
          );
      }
    });
    if (prepared.length === 0) return [];
    const label = prepared.map((p) => formatStoreKey(p.operation.key)).join(', ');
    const replies = await this.run('writeAtomically', label, async () => {
      const transaction = this.client.multi();
      for (const { operation, redisKey, payload } of prepared) {
        if (operation.op === 'set' || operation.op === 'putBlob') {
          if (this.ttlSeconds === undefined) transaction.set(redisKey, payload as string | Buffer);
          else transaction.set(redisKey, payload as string | Buffer, 'EX', this.ttlSeconds);
        } else if (operation.op === 'appendBlob') {
          transaction.append(redisKey, payload as Buffer);
          if (this.ttlSeconds !== undefined) transaction.expire(redisKey, this.ttlSeconds);
        } else transaction.del(redisKey);
      }
      const result = await transaction.exec();
      if (result === null) throw new Error('the transaction was aborted');
      const failed = result.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
      // Drop the EXPIRE replies so that replies line up with operations again.
      const replies: unknown[] = [];
      let at = 0;
      for (const { operation } of prepared) {
        replies.push(result[at]?.[1]);
        at += operation.op === 'appendBlob' && this.ttlSeconds !== undefined ? 2 : 1;
      }
      return replies;
    });
    return prepared.map(({ operation, payload }, index) => {
      if (operation.op === 'putBlob') return (payload as Buffer).byteLength;
      if (operation.op === 'appendBlob') return Number(replies[index]);
      return undefined;
    });
  }

  /**
   * Closes the connection (when the store owns it). Safe to call more than once; any later call
   * fails with `StoreError`.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.closeClient) return;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // The server went away while closing: drop the socket below.
      }
    }
    this.client.disconnect();
  }

  private async *streamBlob(
    redisKey: string,
    id: string,
    key: StoreKey,
    range: BlobRange | undefined,
  ): AsyncGenerator<Uint8Array> {
    const size = await this.sizeOf('readBlob', key, redisKey);
    if (size === undefined) throw new StoreError(STORE_NAME, 'readBlob', id, 'no such blob');
    const start = range?.start ?? 0;
    const requestedEnd = range?.end ?? size;
    if (!Number.isInteger(start) || !Number.isInteger(requestedEnd) || start < 0 || requestedEnd < 0) {
      throw new StoreError(
        STORE_NAME,
        'readBlob',
        id,
        `invalid byte range ${JSON.stringify(range)} (use non-negative integers)`,
      );
    }
    const end = Math.min(requestedEnd, size);
    for (let at = start; at < end; at += this.chunkSize) {
      const last = Math.min(at + this.chunkSize, end);
      // GETRANGE's end is inclusive.
      const chunk = await this.run('readBlob', key, () => this.client.getrangeBuffer(redisKey, at, last - 1));
      if (chunk.byteLength !== last - at) {
        throw new StoreError(STORE_NAME, 'readBlob', id, 'the blob was deleted or shortened while it was read');
      }
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  }

  /** `SET`, with `EX` when a TTL is configured. */
  private write(redisKey: string, payload: string | Buffer): Promise<unknown> {
    return this.ttlSeconds === undefined
      ? this.client.set(redisKey, payload)
      : this.client.set(redisKey, payload, 'EX', this.ttlSeconds);
  }

  /**
   * Blob size, or undefined when absent. One `STRLEN` for a non-empty blob; `STRLEN` is 0 both for
   * a missing key and an empty blob, so only then does an `EXISTS` tell them apart.
   */
  private async sizeOf(operation: string, key: StoreKey, redisKey: string): Promise<number | undefined> {
    const length = await this.run(operation, key, () => this.client.strlen(redisKey));
    if (length > 0) return length;
    const exists = await this.run(operation, key, () => this.client.exists(redisKey));
    return exists > 0 ? 0 : undefined;
  }

  private async scan(operation: string, prefix: StoreKeyPrefix, type: 'value' | 'blob'): Promise<StoreKey[]> {
    const pattern = this.layout.matchPattern(prefix);
    const found = new Map<string, StoreKey>();
    await this.run(operation, `${prefix.agentId}/${prefix.sessionId ?? '*'}/${prefix.kind ?? '*'}`, async () => {
      let cursor = '0';
      do {
        const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        for (const redisKey of keys) {
          const parsed = this.layout.parse(redisKey);
          if (!parsed || parsed.type !== type) continue;
          if (prefix.sessionId !== undefined && parsed.key.sessionId !== prefix.sessionId) continue;
          if (prefix.kind !== undefined && parsed.key.kind !== prefix.kind) continue;
          found.set(formatStoreKey(parsed.key), parsed.key);
        }
      } while (cursor !== '0');
    });
    return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, key]) => key);
  }

  private parse<T>(operation: string, key: StoreKey, text: string): T {
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new StoreError(
        STORE_NAME,
        operation,
        formatStoreKey(key),
        'the stored value is not valid JSON (written by something else?)',
        cause,
      );
    }
  }

  private serialize(operation: string, key: StoreKey, value: unknown): string {
    const id = formatStoreKey(key);
    if (value === undefined)
      throw new StoreError(STORE_NAME, operation, id, 'the value is undefined (use delete to remove a key)');
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (cause) {
      throw new StoreError(STORE_NAME, operation, id, `the value is not JSON (${errorText(cause)})`, cause);
    }
    if (text === undefined)
      throw new StoreError(STORE_NAME, operation, id, 'the value is not JSON (store JSON data only)');
    return text;
  }

  private bytes(operation: string, key: StoreKey, data: string | Uint8Array): Buffer {
    try {
      return toBuffer(data);
    } catch (cause) {
      throw new StoreError(
        STORE_NAME,
        operation,
        formatStoreKey(key),
        'blob data must be a string or a Uint8Array',
        cause,
      );
    }
  }

  /** Runs one Redis call and turns anything it throws into a StoreError. */
  private async run<T>(operation: string, key: StoreKey | string, call: () => Promise<T>): Promise<T> {
    const id = typeof key === 'string' ? key : formatStoreKey(key);
    if (this.closed) throw new StoreError(STORE_NAME, operation, id, 'the store is closed');
    try {
      return await call();
    } catch (cause) {
      if (CtxkitError.isInstance(cause)) throw cause;
      const problem = isConnectionFailure(cause)
        ? `cannot reach Redis at ${redactUrl(this.url)} (${errorText(cause)}${
            this.lastConnectionError && this.lastConnectionError !== errorText(cause)
              ? `; ${this.lastConnectionError}`
              : ''
          }); start redis-server or point REDIS_URL at a running server`
        : `Redis replied: ${errorText(cause)}`;
      throw new StoreError(STORE_NAME, operation, id, problem, cause);
    }
  }
}
