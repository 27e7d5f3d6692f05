import { CtxkitError } from '@ctxkit/core';
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';

import { postgresStoreError } from './postgres-store-error';
import type { PostgresTables } from './postgres-tables';

/** An error's message with its code (pg errors carry a SQLSTATE or a socket error code), for messages. */
function errorText(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const message = cause.message || cause.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(cause);
}

/** Words of the messages that socket errors and pg's own connection failures carry. */
const CONNECTION_FAILURE = new RegExp(
  [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EPIPE',
    'Connection terminated',
    'timeout exceeded',
    'Query read timeout',
    'connect',
  ].join('|'),
  'i',
);

/**
 * Failures that mean the server cannot be reached (or went away), rather than a reply to a statement:
 * socket errors, pg's own connection messages, and SQLSTATE class 08 (connection exception) and
 * 57P01 to 57P03 (the server is shutting down or starting up).
 */
function isConnectionFailure(cause: unknown): boolean {
  const code = String((cause as { code?: unknown })?.code ?? '');
  if (/^08/.test(code) || /^57P0[123]$/.test(code)) return true;
  return CONNECTION_FAILURE.test(`${code} ${errorText(cause)}`);
}

/** A connection string without its password, for messages. */
export function redactConnectionString(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of ['password', 'sslpassword']) {
      if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    }
    return parsed.toString();
  } catch {
    return '(unparsable connection string)';
  }
}

/**
 * The pool, the tables and the failure handling that the store and its recall backend share: every
 * statement first makes sure the tables exist, and anything a statement throws becomes a
 * `StoreError` that names the operation, the key and the (redacted) server.
 */
export class PostgresConnection {
  private ready: Promise<void> | undefined;
  private closed = false;
  /** The last connection error the pool reported for an idle client, added to the next failure's message. */
  lastConnectionError: string | undefined;

  constructor(
    readonly pool: Pool,
    readonly tables: PostgresTables,
    /** Where the server is, password redacted: for messages. */
    readonly target: string,
    private readonly ownsPool: boolean,
  ) {}

  /** Runs one statement (after making sure the tables exist); failures become StoreError. */
  async query<R extends QueryResultRow = QueryResultRow>(
    operation: string,
    key: string,
    sql: string,
    params: unknown[] = [],
  ): Promise<QueryResult<R>> {
    return this.run(operation, key, async () => {
      await this.ensureTables();
      return this.pool.query<R>(sql, params);
    });
  }

  /**
   * Runs `work` in one transaction on one pooled client: committed when it resolves, rolled back when
   * it throws. A client whose connection failed is discarded, not returned to the pool.
   */
  async transaction<T>(operation: string, key: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.run(operation, key, async () => {
      await this.ensureTables();
      return this.inTransaction(work);
    });
  }

  /**
   * Creates the tables when any is missing, once per connection (again after a failure). The DDL
   * runs under an advisory lock in one transaction, so that two processes starting at once do not
   * both create a table (PostgreSQL's `IF NOT EXISTS` alone does not guard against that race).
   */
  ensureTables(): Promise<void> {
    this.ready ??= this.createTables().catch((cause: unknown) => {
      this.ready = undefined;
      throw cause;
    });
    return this.ready;
  }

  /** Ends the pool when the store created it. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  /** Runs one database call and turns anything it throws into a StoreError. */
  async run<T>(operation: string, key: string, call: () => Promise<T>): Promise<T> {
    if (this.closed) throw postgresStoreError(operation, key, 'the store is closed');
    try {
      return await call();
    } catch (cause) {
      if (CtxkitError.isInstance(cause)) throw cause;
      const text = errorText(cause);
      const problem = isConnectionFailure(cause)
        ? `cannot reach PostgreSQL at ${this.target} (${text}${
            this.lastConnectionError && this.lastConnectionError !== text ? `; ${this.lastConnectionError}` : ''
          }); start PostgreSQL or point DATABASE_URL at a running server`
        : `PostgreSQL replied: ${text}`;
      throw postgresStoreError(operation, key, problem, cause);
    }
  }

  private async createTables(): Promise<void> {
    const objects = this.tables.objects();
    const check = objects.map((_, index) => `to_regclass($${index + 1}) IS NOT NULL`).join(' AND ');
    const existing = await this.pool.query<{ ready: boolean }>(`SELECT ${check} AS ready`, objects);
    if (existing.rows[0]?.ready) return;
    await this.inTransaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.tables.creationLockKey()]);
      for (const statement of this.tables.createStatements()) await client.query(statement);
    });
  }

  private async inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // Between statements no query is waiting for the socket, so pg reports a lost connection as an
    // 'error' event; without a listener it would end the process.
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (cause) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw cause;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}
