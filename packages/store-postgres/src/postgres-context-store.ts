import type {
  BlobRange,
  IContextStore,
  StoreKey,
  StoreKeyPrefix,
  StoreKind,
  VersionedSetResult,
  VersionedValue,
} from '@ctxkit/core';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  decodeStoreKeyPart,
  encodeStoreKeyPart,
  formatStoreKey,
} from '@ctxkit/core/strategy-kit';
import { Pool, type PoolClient } from 'pg';

import { PostgresConnection, redactConnectionString } from './postgres-connection';
import { PostgresRecallBackend } from './postgres-recall-backend';
import { POSTGRES_STORE_NAME, postgresStoreError } from './postgres-store-error';
import { DEFAULT_POSTGRES_TABLE_PREFIX, PostgresTables } from './postgres-tables';

/** Options of {@link PostgresContextStore}. */
export interface PostgresContextStoreOptions {
  /**
   * A `pg` pool to use. The store does not end a pool it was given unless `closePool` is true. When
   * absent, the store creates one from `connectionString`.
   */
  pool?: Pool;
  /**
   * Where the server is, e.g. `postgresql://ctxkit:secret@db.internal:5432/agents`.
   * @default process.env.DATABASE_URL, else pg's defaults: the `PGHOST`, `PGPORT`, `PGUSER`,
   *   `PGPASSWORD` and `PGDATABASE` environment variables, then localhost:5432
   */
  connectionString?: string;
  /**
   * The schema of the tables; created when absent.
   * @default undefined (the connection's `search_path`, usually `public`)
   */
  schema?: string;
  /**
   * First part of every table name (`<prefix>_values`, ...), so that applications can share a
   * database: lowercase letters, digits and `_`, at most 40 characters.
   * @default 'ctxkit'
   */
  tablePrefix?: string;
  /**
   * Size of the chunks `readBlob` yields, in bytes; each chunk is one query.
   * @default 1048576 (1 MiB)
   */
  chunkSize?: number;
  /**
   * How long to wait for a connection, in milliseconds (only for a pool the store creates).
   * @default 5000
   */
  connectionTimeoutMs?: number;
  /**
   * How long one statement may run, in milliseconds (`statement_timeout` on the server and a client-side
   * timeout for a server that stops answering; only for a pool the store creates).
   * @default 30000
   */
  queryTimeoutMs?: number;
  /**
   * Whether `close()` ends the pool.
   * @default true for a pool the store created, false for a given one
   */
  closePool?: boolean;
}

/** `readBlob` chunk size unless configured: 1 MiB. */
export const DEFAULT_POSTGRES_CHUNK_SIZE = 1024 * 1024;
/** The largest part a blob is stored in: `putBlob` splits bigger data, each part one row. */
const MAX_PART_BYTES = 1024 * 1024;
/**
 * An append joins the blob's last part while both together stay this small, so that a transcript
 * written a line at a time is not thousands of rows, and no append rewrites more than this.
 */
const MERGE_PART_BYTES = 64 * 1024;
const DEFAULT_CONNECTION_TIMEOUT_MS = 5000;
const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** A key's columns: `agent_id`, `session_id`, `kind`, `name`, each part in its stored form. */
type KeyColumns = [string, string, StoreKind, string];

function keyColumns(key: StoreKey): KeyColumns {
  assertStoreKey(key);
  return [encodeStoreKeyPart(key.agentId), encodeStoreKeyPart(key.sessionId), key.kind, encodeStoreKeyPart(key.name)];
}

function toBuffer(data: string | Uint8Array): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return Buffer.from(data);
  throw new TypeError('blob data must be a string or a Uint8Array');
}

/** Where a pool connects, password redacted, for messages. */
function describeTarget(connectionString: string | undefined, pool: Pool | undefined): string {
  const options = (pool?.options ?? {}) as {
    connectionString?: string;
    host?: string;
    port?: number;
    database?: string;
    user?: string;
  };
  const url = connectionString ?? options.connectionString;
  if (url) return redactConnectionString(url);
  const host = options.host ?? process.env.PGHOST ?? 'localhost';
  const port = options.port ?? process.env.PGPORT ?? 5432;
  const user = options.user ?? process.env.PGUSER;
  const database = options.database ?? process.env.PGDATABASE ?? '';
  return `postgresql://${user ? `${user}@` : ''}${host}:${port}/${database}`;
}

/**
 * The PostgreSQL store: summaries, entity state, cached tool outputs and transcripts in tables of a
 * PostgreSQL database, so that many agent processes on many machines share one conversation's state,
 * with the recall logs searched by PostgreSQL's full-text search ({@link PostgresContextStore.recallBackend}).
 *
 * - Tables (`<prefix>_values`, `<prefix>_blobs`, `<prefix>_blob_parts`, `<prefix>_recall`) are created
 *   on first use, under an advisory lock so that processes starting together do not collide.
 * - Key parts are stored in their stored form (`encodeStoreKeyPart`); every key is validated first.
 * - JSON values are stored as their JSON text. A value's version comes from a sequence: every write
 *   takes a new one, never reused, so a value deleted and written again does not get an old version.
 *   `setIfVersion` is one conditional `INSERT ... ON CONFLICT DO NOTHING` or `UPDATE ... WHERE version`:
 *   of several processes writing at one version, exactly one succeeds.
 * - Blobs are parts of at most 1 MiB keyed by byte offset: `putBlob` and `appendBlob` are one
 *   transaction each, holding the blob's row lock (appends never interleave, and one either happens
 *   wholly or not at all); `readBlob` streams `chunkSize` pieces, each one query that reads only the
 *   parts it needs. A blob replaced or deleted while it is read fails the read.
 *
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid key, from every method
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the server cannot be reached or replies with an
 *   error, for a value that is not JSON, a missing blob on `readBlob`, an invalid byte range, an
 *   invalid option, or use after `close()`
 * @see docs/09-stores.md
 */
export class PostgresContextStore implements IContextStore {
  readonly name = POSTGRES_STORE_NAME;
  /** The table names, with the configured prefix and schema. */
  readonly tables: PostgresTables;
  private readonly connection: PostgresConnection;
  private readonly chunkSize: number;
  private recall: PostgresRecallBackend | undefined;

  constructor(options: PostgresContextStoreOptions = {}) {
    this.tables = new PostgresTables(options.tablePrefix ?? DEFAULT_POSTGRES_TABLE_PREFIX, options.schema);
    this.chunkSize =
      options.chunkSize !== undefined && Number.isInteger(options.chunkSize) && options.chunkSize > 0
        ? options.chunkSize
        : DEFAULT_POSTGRES_CHUNK_SIZE;
    let pool: Pool;
    let ownsPool: boolean;
    let target: string;
    if (options.pool) {
      pool = options.pool;
      ownsPool = options.closePool ?? false;
      target = describeTarget(undefined, pool);
    } else {
      const connectionString = options.connectionString ?? process.env.DATABASE_URL;
      const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
      target = describeTarget(connectionString, undefined);
      try {
        pool = new Pool({
          ...(connectionString === undefined ? {} : { connectionString }),
          application_name: 'ctxkit-store',
          connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
          statement_timeout: queryTimeoutMs,
          // A little longer than the server's own limit, so that the server's error wins when it answers.
          query_timeout: queryTimeoutMs + 1000,
        });
      } catch (cause) {
        throw postgresStoreError('connect', target, `invalid connection options (${String(cause)})`, cause);
      }
      ownsPool = options.closePool ?? true;
    }
    this.connection = new PostgresConnection(pool, this.tables, target, ownsPool);
    if (ownsPool) {
      // An idle client that loses its connection is reported as a pool 'error' event; without a
      // listener it would end the process. The next statement fails with a StoreError instead.
      pool.on('error', (error: Error) => {
        this.connection.lastConnectionError = error.message;
      });
    }
  }

  async get<T = unknown>(key: StoreKey): Promise<T | undefined> {
    const columns = keyColumns(key);
    const result = await this.connection.query<{ value: string }>(
      'get',
      formatStoreKey(key),
      `SELECT value FROM ${this.tables.values} WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4`,
      columns,
    );
    const row = result.rows[0];
    return row === undefined ? undefined : this.parse<T>('get', key, row.value);
  }

  async set(key: StoreKey, value: unknown): Promise<void> {
    const columns = keyColumns(key);
    const text = this.serialize('set', key, value);
    await this.connection.query(
      'set',
      formatStoreKey(key),
      `INSERT INTO ${this.tables.values} (agent_id, session_id, kind, name, value, version)
       VALUES ($1, $2, $3, $4, $5, nextval('${this.tables.ids}'))
       ON CONFLICT (agent_id, session_id, kind, name)
       DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version, updated_at = now()`,
      [...columns, text],
    );
  }

  async getVersioned<T = unknown>(key: StoreKey): Promise<VersionedValue<T> | undefined> {
    const columns = keyColumns(key);
    return this.readVersioned<T>('getVersioned', key, columns);
  }

  async setIfVersion(key: StoreKey, value: unknown, expectedVersion: string | undefined): Promise<VersionedSetResult> {
    const columns = keyColumns(key);
    const text = this.serialize('setIfVersion', key, value);
    const id = formatStoreKey(key);
    if (expectedVersion === undefined) {
      // Create only when absent. When the key exists, answer with what it holds; should it be deleted
      // between the two statements, try the create again (the answer must describe a real state).
      for (;;) {
        const created = await this.connection.query<{ version: string }>(
          'setIfVersion',
          id,
          `INSERT INTO ${this.tables.values} (agent_id, session_id, kind, name, value, version)
           VALUES ($1, $2, $3, $4, $5, nextval('${this.tables.ids}'))
           ON CONFLICT (agent_id, session_id, kind, name) DO NOTHING
           RETURNING version::text AS version`,
          [...columns, text],
        );
        const version = created.rows[0]?.version;
        if (version !== undefined) return { ok: true, version };
        const current = await this.readVersioned('setIfVersion', key, columns);
        if (current !== undefined) return { ok: false, current };
      }
    }
    // Under READ COMMITTED a concurrent UPDATE of the row makes this one wait, then check the version
    // again on the row it left: of several writers at one version, exactly one matches. Compared as
    // text, so that a version string from elsewhere simply does not match.
    const updated = await this.connection.query<{ version: string }>(
      'setIfVersion',
      id,
      `UPDATE ${this.tables.values} SET value = $5, version = nextval('${this.tables.ids}'), updated_at = now()
       WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4 AND version::text = $6
       RETURNING version::text AS version`,
      [...columns, text, expectedVersion],
    );
    const version = updated.rows[0]?.version;
    if (version !== undefined) return { ok: true, version };
    return { ok: false, current: await this.readVersioned('setIfVersion', key, columns) };
  }

  async delete(key: StoreKey): Promise<boolean> {
    const columns = keyColumns(key);
    const result = await this.connection.query(
      'delete',
      formatStoreKey(key),
      `DELETE FROM ${this.tables.values} WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4`,
      columns,
    );
    return (result.rowCount ?? 0) > 0;
  }

  async list(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    return this.listIn('list', this.tables.values, prefix);
  }

  async putBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    const columns = keyColumns(key);
    const bytes = this.bytes('putBlob', key, data);
    await this.connection.transaction('putBlob', formatStoreKey(key), async (client) => {
      // A replaced blob gets a new id, so that a read of the old one notices instead of mixing both.
      let blobId: string | undefined;
      while (blobId === undefined) {
        const existing = await client.query<{ blob_id: string }>(
          `SELECT blob_id::text AS blob_id FROM ${this.tables.blobs}
           WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4 FOR UPDATE`,
          columns,
        );
        const old = existing.rows[0]?.blob_id;
        if (old !== undefined) {
          await client.query(`DELETE FROM ${this.tables.blobParts} WHERE blob_id = $1`, [old]);
          const replaced = await client.query<{ blob_id: string }>(
            `UPDATE ${this.tables.blobs} SET blob_id = nextval('${this.tables.ids}'), byte_size = $5, updated_at = now()
             WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4
             RETURNING blob_id::text AS blob_id`,
            [...columns, bytes.byteLength],
          );
          blobId = replaced.rows[0]?.blob_id;
        } else {
          // Absent: create it. Another writer creating it at the same moment wins the insert; then
          // the loop takes the row lock and replaces what that writer wrote.
          const created = await client.query<{ blob_id: string }>(
            `INSERT INTO ${this.tables.blobs} (agent_id, session_id, kind, name, blob_id, byte_size)
             VALUES ($1, $2, $3, $4, nextval('${this.tables.ids}'), $5)
             ON CONFLICT (agent_id, session_id, kind, name) DO NOTHING
             RETURNING blob_id::text AS blob_id`,
            [...columns, bytes.byteLength],
          );
          blobId = created.rows[0]?.blob_id;
        }
      }
      await this.insertParts(client, blobId, 0, bytes);
    });
    return { byteSize: bytes.byteLength };
  }

  async appendBlob(key: StoreKey, data: string | Uint8Array): Promise<{ byteSize: number }> {
    const columns = keyColumns(key);
    const bytes = this.bytes('appendBlob', key, data);
    return this.connection.transaction('appendBlob', formatStoreKey(key), async (client) => {
      // One statement creates the blob or grows it, and holds its row lock until the parts are
      // written: concurrent appends to one blob run one after the other.
      const grown = await client.query<{ blob_id: string; byte_size: string }>(
        `INSERT INTO ${this.tables.blobs} AS blob (agent_id, session_id, kind, name, blob_id, byte_size)
         VALUES ($1, $2, $3, $4, nextval('${this.tables.ids}'), $5)
         ON CONFLICT (agent_id, session_id, kind, name)
         DO UPDATE SET byte_size = blob.byte_size + EXCLUDED.byte_size, updated_at = now()
         RETURNING blob.blob_id::text AS blob_id, blob.byte_size::text AS byte_size`,
        [...columns, bytes.byteLength],
      );
      const row = grown.rows[0]!;
      const byteSize = Number(row.byte_size);
      if (bytes.byteLength === 0) return { byteSize };
      const offset = byteSize - bytes.byteLength;
      const last = await client.query<{ part_offset: string; length: number }>(
        `SELECT byte_offset::text AS part_offset, length(data) AS length FROM ${this.tables.blobParts}
         WHERE blob_id = $1 ORDER BY byte_offset DESC LIMIT 1`,
        [row.blob_id],
      );
      const tail = last.rows[0];
      const joins = tail !== undefined && Number(tail.part_offset) + tail.length === offset;
      if (joins && tail.length + bytes.byteLength <= MERGE_PART_BYTES) {
        await client.query(
          `UPDATE ${this.tables.blobParts} SET data = data || $3 WHERE blob_id = $1 AND byte_offset = $2`,
          [row.blob_id, tail.part_offset, bytes],
        );
      } else {
        await this.insertParts(client, row.blob_id, offset, bytes);
      }
      return { byteSize };
    });
  }

  readBlob(key: StoreKey, range?: BlobRange): AsyncIterable<Uint8Array> {
    const columns = keyColumns(key);
    return {
      [Symbol.asyncIterator]: () => this.streamBlob(key, columns, range),
    };
  }

  async blobSize(key: StoreKey): Promise<number | undefined> {
    const columns = keyColumns(key);
    const size = await this.blobHeader('blobSize', key, columns);
    return size?.byteSize;
  }

  async deleteBlob(key: StoreKey): Promise<boolean> {
    const columns = keyColumns(key);
    // One statement: the blob's row and its parts go together.
    const result = await this.connection.query<{ deleted: string }>(
      'deleteBlob',
      formatStoreKey(key),
      `WITH gone AS (
         DELETE FROM ${this.tables.blobs} WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4
         RETURNING blob_id
       ), parts AS (
         DELETE FROM ${this.tables.blobParts} WHERE blob_id IN (SELECT blob_id FROM gone)
       )
       SELECT count(*)::text AS deleted FROM gone`,
      columns,
    );
    return Number(result.rows[0]?.deleted ?? 0) > 0;
  }

  async listBlobs(prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    return this.listIn('listBlobs', this.tables.blobs, prefix);
  }

  /**
   * The recall backend on this store's database: records in `<prefix>_recall`, searched with
   * PostgreSQL's full-text search. One per store; it uses the store's pool and ends with it.
   */
  recallBackend(): PostgresRecallBackend {
    this.recall ??= new PostgresRecallBackend(this.connection);
    return this.recall;
  }

  /**
   * Ends the pool (when the store created it). Safe to call more than once; any later call fails
   * with `StoreError`.
   */
  async close(): Promise<void> {
    await this.connection.close();
  }

  private async readVersioned<T>(
    operation: string,
    key: StoreKey,
    columns: KeyColumns,
  ): Promise<VersionedValue<T> | undefined> {
    const result = await this.connection.query<{ value: string; version: string }>(
      operation,
      formatStoreKey(key),
      `SELECT value, version::text AS version FROM ${this.tables.values}
       WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4`,
      columns,
    );
    const row = result.rows[0];
    return row === undefined ? undefined : { value: this.parse<T>(operation, key, row.value), version: row.version };
  }

  private async blobHeader(
    operation: string,
    key: StoreKey,
    columns: KeyColumns,
  ): Promise<{ blobId: string; byteSize: number } | undefined> {
    const result = await this.connection.query<{ blob_id: string; byte_size: string }>(
      operation,
      formatStoreKey(key),
      `SELECT blob_id::text AS blob_id, byte_size::text AS byte_size FROM ${this.tables.blobs}
       WHERE agent_id = $1 AND session_id = $2 AND kind = $3 AND name = $4`,
      columns,
    );
    const row = result.rows[0];
    return row === undefined ? undefined : { blobId: row.blob_id, byteSize: Number(row.byte_size) };
  }

  /** Writes `bytes` as parts of at most {@link MAX_PART_BYTES}, the first at `offset`. */
  private async insertParts(client: PoolClient, blobId: string, offset: number, bytes: Buffer): Promise<void> {
    for (let at = 0; at < bytes.byteLength; at += MAX_PART_BYTES) {
      const part = bytes.subarray(at, Math.min(at + MAX_PART_BYTES, bytes.byteLength));
      await client.query(`INSERT INTO ${this.tables.blobParts} (blob_id, byte_offset, data) VALUES ($1, $2, $3)`, [
        blobId,
        offset + at,
        part,
      ]);
    }
  }

  private async *streamBlob(
    key: StoreKey,
    columns: KeyColumns,
    range: BlobRange | undefined,
  ): AsyncGenerator<Uint8Array> {
    const id = formatStoreKey(key);
    const header = await this.blobHeader('readBlob', key, columns);
    if (header === undefined) throw postgresStoreError('readBlob', id, 'no such blob');
    const start = range?.start ?? 0;
    const requestedEnd = range?.end ?? header.byteSize;
    if (!Number.isInteger(start) || !Number.isInteger(requestedEnd) || start < 0 || requestedEnd < 0) {
      const problem = `invalid byte range ${JSON.stringify(range)} (use non-negative integers)`;
      throw postgresStoreError('readBlob', id, problem);
    }
    // The read ends at the size the blob had when it started: appends during the read are safe.
    const end = Math.min(requestedEnd, header.byteSize);
    for (let at = start; at < end; at += this.chunkSize) {
      const last = Math.min(at + this.chunkSize, end);
      // The parts that overlap [at, last), each cut to the overlap: the part holding `at` (the
      // greatest offset not after it) and every later one that starts before `last`.
      const result = await this.connection.query<{ part_offset: string; piece: Buffer }>(
        'readBlob',
        id,
        `SELECT byte_offset::text AS part_offset,
                substring(data
                  FROM (greatest($2::bigint, byte_offset) - byte_offset + 1)::integer
                  FOR (least($3::bigint, byte_offset + length(data)) - greatest($2::bigint, byte_offset))::integer
                ) AS piece
         FROM ${this.tables.blobParts}
         WHERE blob_id = $1 AND byte_offset < $3::bigint AND byte_offset + length(data) > $2::bigint
           AND byte_offset >= coalesce((
             SELECT max(byte_offset) FROM ${this.tables.blobParts} WHERE blob_id = $1 AND byte_offset <= $2::bigint
           ), 0)
         ORDER BY byte_offset`,
        [header.blobId, at, last],
      );
      let reached = at;
      const pieces: Buffer[] = [];
      for (const row of result.rows) {
        if (Math.max(Number(row.part_offset), at) !== reached) break;
        pieces.push(row.piece);
        reached += row.piece.byteLength;
      }
      if (reached !== last) {
        throw postgresStoreError('readBlob', id, 'the blob was deleted or replaced while it was read');
      }
      const chunk = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  }

  private async listIn(operation: string, table: string, prefix: StoreKeyPrefix): Promise<StoreKey[]> {
    assertStoreKeyPrefix(prefix);
    const result = await this.connection.query<{ agent_id: string; session_id: string; kind: StoreKind; name: string }>(
      operation,
      `${prefix.agentId}/${prefix.sessionId ?? '*'}/${prefix.kind ?? '*'}`,
      `SELECT agent_id, session_id, kind, name FROM ${table}
       WHERE agent_id = $1 AND ($2::text IS NULL OR session_id = $2) AND ($3::text IS NULL OR kind = $3)`,
      [
        encodeStoreKeyPart(prefix.agentId),
        prefix.sessionId === undefined ? null : encodeStoreKeyPart(prefix.sessionId),
        prefix.kind ?? null,
      ],
    );
    const keys = result.rows.map((row): StoreKey => ({
      agentId: decodeStoreKeyPart(row.agent_id),
      sessionId: decodeStoreKeyPart(row.session_id),
      kind: row.kind,
      name: decodeStoreKeyPart(row.name),
    }));
    // The order every store lists in: by the key's text form (not the database's collation).
    return keys
      .map((key) => [formatStoreKey(key), key] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, key]) => key);
  }

  private parse<T>(operation: string, key: StoreKey, text: string): T {
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      const problem = 'the stored value is not valid JSON (written by something else?)';
      throw postgresStoreError(operation, formatStoreKey(key), problem, cause);
    }
  }

  private serialize(operation: string, key: StoreKey, value: unknown): string {
    const id = formatStoreKey(key);
    if (value === undefined) {
      throw postgresStoreError(operation, id, 'the value is undefined (use delete to remove a key)');
    }
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw postgresStoreError(operation, id, `the value is not JSON (${reason})`, cause);
    }
    if (text === undefined) throw postgresStoreError(operation, id, 'the value is not JSON (store JSON data only)');
    return text;
  }

  private bytes(operation: string, key: StoreKey, data: string | Uint8Array): Buffer {
    try {
      return toBuffer(data);
    } catch (cause) {
      throw postgresStoreError(operation, formatStoreKey(key), 'blob data must be a string or a Uint8Array', cause);
    }
  }
}
