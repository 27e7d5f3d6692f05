import { createHash } from 'node:crypto';

import { postgresStoreError } from './postgres-store-error';

/** The default table prefix: tables `ctxkit_values`, `ctxkit_blobs`, `ctxkit_blob_parts`, `ctxkit_recall`. */
export const DEFAULT_POSTGRES_TABLE_PREFIX = 'ctxkit';

/**
 * A table prefix or schema name: lowercase letters, digits and `_`, not starting with a digit, so
 * that it is the same identifier quoted or not and needs no escaping anywhere. A prefix leaves room
 * for the longest derived name (`<prefix>_recall_resets_idx`) within PostgreSQL's 63 characters.
 */
const PREFIX_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** The recall table's indexes besides its keys: reading a log in order, finding resets, full-text search. */
const RECALL_INDEXES = ['recall_log_idx', 'recall_resets_idx', 'recall_search_idx'] as const;

/** A signed 64-bit advisory lock key for `text`, as a decimal string (PostgreSQL's `bigint`). */
export function advisoryLockKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest().readBigInt64BE(0).toString();
}

/**
 * The names and definitions of the store's tables: where values, blobs and recall logs live for one
 * prefix in one schema. Several applications share a database by using different prefixes or schemas.
 *
 * - `<prefix>_values`: one row per JSON value, its text and its version.
 * - `<prefix>_blobs`: one row per blob, its size and the id its parts are stored under.
 * - `<prefix>_blob_parts`: a blob's bytes, in parts keyed by their byte offset.
 * - `<prefix>_recall`: recall log records, with a serial for append order and a `tsvector` for search.
 * - `<prefix>_ids`: the sequence behind value versions and blob ids (never reused).
 *
 * @throws StoreError (`CTXKIT_STORE_ERROR`) for a prefix or schema that is not a plain identifier
 * @see docs/09-stores.md
 */
export class PostgresTables {
  /** The schema the tables are in, or `undefined` for the connection's `search_path` (usually `public`). */
  readonly schema: string | undefined;
  readonly prefix: string;
  /** Quoted, schema-qualified names, ready for SQL text. */
  readonly values: string;
  readonly blobs: string;
  readonly blobParts: string;
  readonly recall: string;
  readonly ids: string;

  /** @param prefix @default 'ctxkit' */
  constructor(prefix: string = DEFAULT_POSTGRES_TABLE_PREFIX, schema?: string) {
    if (!PREFIX_PATTERN.test(prefix)) {
      const problem = `tablePrefix must match ${PREFIX_PATTERN} (got ${JSON.stringify(prefix)})`;
      throw postgresStoreError('configure', '(options)', problem);
    }
    if (schema !== undefined && !SCHEMA_PATTERN.test(schema)) {
      const problem = `schema must match ${SCHEMA_PATTERN} (got ${JSON.stringify(schema)})`;
      throw postgresStoreError('configure', '(options)', problem);
    }
    this.prefix = prefix;
    this.schema = schema;
    this.values = this.qualified('values');
    this.blobs = this.qualified('blobs');
    this.blobParts = this.qualified('blob_parts');
    this.recall = this.qualified('recall');
    this.ids = this.qualified('ids');
  }

  /**
   * Every table, sequence and index the store needs, as `to_regclass` reads them: when all exist, the
   * store runs no DDL at all (and needs no `CREATE` privilege).
   */
  objects(): string[] {
    const indexes = RECALL_INDEXES.map((index) => this.qualified(index));
    return [this.ids, this.values, this.blobs, this.blobParts, this.recall, ...indexes];
  }

  /** The advisory lock that serialises table creation, so that two processes creating them at once do not collide. */
  creationLockKey(): string {
    return advisoryLockKey(`ctxkit-store-postgres\u0000${this.schema ?? ''}\u0000${this.prefix}`);
  }

  /** The DDL, idempotent (`IF NOT EXISTS`), in order. */
  createStatements(): string[] {
    const name = (suffix: string) => `"${this.prefix}_${suffix}"`;
    return [
      ...(this.schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`]),
      `CREATE SEQUENCE IF NOT EXISTS ${this.ids}`,
      `CREATE TABLE IF NOT EXISTS ${this.values} (
        agent_id text NOT NULL,
        session_id text NOT NULL,
        kind text NOT NULL,
        name text NOT NULL,
        value text NOT NULL,
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (agent_id, session_id, kind, name)
      )`,
      `CREATE TABLE IF NOT EXISTS ${this.blobs} (
        agent_id text NOT NULL,
        session_id text NOT NULL,
        kind text NOT NULL,
        name text NOT NULL,
        blob_id bigint NOT NULL UNIQUE,
        byte_size bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (agent_id, session_id, kind, name)
      )`,
      `CREATE TABLE IF NOT EXISTS ${this.blobParts} (
        blob_id bigint NOT NULL,
        byte_offset bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (blob_id, byte_offset)
      )`,
      `CREATE TABLE IF NOT EXISTS ${this.recall} (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent_id text NOT NULL,
        scope text NOT NULL,
        scope_id text NOT NULL,
        record_id text NOT NULL,
        record_type text NOT NULL,
        session_id text,
        from_position bigint,
        reset_seq bigint NOT NULL DEFAULT 0,
        record text NOT NULL,
        search tsvector,
        appended_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_id, scope, scope_id, record_id, reset_seq)
      )`,
      `CREATE INDEX IF NOT EXISTS ${name('recall_log_idx')} ON ${this.recall} (agent_id, scope, scope_id, seq)`,
      `CREATE INDEX IF NOT EXISTS ${name('recall_resets_idx')}
        ON ${this.recall} (agent_id, scope, scope_id, session_id, from_position) WHERE record_type = 'reset'`,
      `CREATE INDEX IF NOT EXISTS ${name('recall_search_idx')} ON ${this.recall} USING GIN (search)`,
    ];
  }

  private qualified(suffix: string): string {
    const table = `"${this.prefix}_${suffix}"`;
    return this.schema === undefined ? table : `"${this.schema}".${table}`;
  }
}
