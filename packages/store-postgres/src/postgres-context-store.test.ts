import { randomBytes } from 'node:crypto';
import net from 'node:net';

import { CtxkitError, ErrorCodes, type StoreKey } from '@ctxkit/core';
import { storeFailureOf } from '@ctxkit/core/testing';
import { Pool } from 'pg';

import { type PostgresServerProcess, startPostgresServer } from './__tests__/postgres-server';
import { PostgresContextStore } from './postgres-context-store';

const key = (overrides: Partial<StoreKey> = {}): StoreKey => ({
  agentId: 'booking-agent',
  sessionId: 'trip-7',
  kind: 'entities',
  name: 'state',
  ...overrides,
});

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** A table prefix no other test uses, so that its tables start out absent. */
const freshPrefix = () => `t_${randomBytes(5).toString('hex')}`;

/** A loopback port nothing listens on. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let server: PostgresServerProcess;
let admin: Pool;

beforeAll(async () => {
  server = await startPostgresServer();
  admin = new Pool({ connectionString: server.url });
  // pg reports an idle client the server dropped as a pool 'error' event, which without a listener
  // ends the test process; the pool has already discarded that client, and the next query reconnects.
  admin.on('error', () => undefined);
});

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

describe('PostgresContextStore', () => {
  describe('#constructor', () => {
    it('rejects a table prefix or schema that is not a plain identifier', () => {
      const invalid = [
        { tablePrefix: 'Ctx' },
        { tablePrefix: 'a"; DROP TABLE x; --' },
        { tablePrefix: 'x'.repeat(41) },
        { schema: '1st' },
      ];
      for (const options of invalid) {
        let error: unknown;
        try {
          new PostgresContextStore({ connectionString: server.url, ...options });
        } catch (caught) {
          error = caught;
        }
        expect(CtxkitError.isInstance(error) && error.code).toBe(ErrorCodes.STORE_ERROR);
      }
    });

    it('connects to DATABASE_URL when given no pool and no connection string', async () => {
      const previous = process.env.DATABASE_URL;
      process.env.DATABASE_URL = server.url;
      const store = new PostgresContextStore({ tablePrefix: freshPrefix() });
      try {
        await store.set(key(), { destination: 'Tokyo' });
        await expect(store.get(key())).resolves.toEqual({ destination: 'Tokyo' });
      } finally {
        if (previous === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = previous;
        await store.close();
      }
    });
  });

  describe('tables', () => {
    it('creates its tables on first use, in the configured schema, with the configured prefix', async () => {
      const prefix = freshPrefix();
      const store = new PostgresContextStore({
        connectionString: server.url,
        schema: 'ctx_tables',
        tablePrefix: prefix,
      });
      try {
        await store.set(key(), 1);
        const { rows } = await admin.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
           WHERE table_schema = 'ctx_tables' ORDER BY table_name`,
        );
        const tables = ['blob_parts', 'blobs', 'recall', 'values'].map((table) => `${prefix}_${table}`);
        expect(rows.map((row) => row.name)).toEqual(tables);
      } finally {
        await store.close();
      }
    });

    it('lets several processes create the same tables at once', async () => {
      const prefix = freshPrefix();
      // Each store has its own pool, as separate processes would.
      const stores = Array.from(
        { length: 6 },
        () => new PostgresContextStore({ connectionString: server.url, tablePrefix: prefix }),
      );
      try {
        await Promise.all(stores.map((store, index) => store.set(key({ name: `writer-${index}` }), index)));
        await expect(stores[0]!.list({ agentId: 'booking-agent' })).resolves.toHaveLength(6);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it('runs no DDL once the tables exist, so a role without CREATE privilege can use them', async () => {
      const prefix = freshPrefix();
      const owner = new PostgresContextStore({ connectionString: server.url, tablePrefix: prefix });
      await owner.set(key(), 'created by the owner');
      await owner.close();
      const role = `app_${prefix}`;
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
      await admin.query(`GRANT USAGE ON SEQUENCE ${prefix}_ids TO ${role}`);
      const url = new URL(server.url);
      url.username = role;
      const store = new PostgresContextStore({ connectionString: url.toString(), tablePrefix: prefix });
      try {
        await expect(store.get(key())).resolves.toBe('created by the owner');
        await store.set(key(), 'written by the application role');
        const transcript = key({ kind: 'transcript', name: 't' });
        await expect(store.appendBlob(transcript, 'line\n')).resolves.toEqual({ byteSize: 5 });
        const scope = { agentId: 'booking-agent', scope: 'resource', id: 'user-1' } as const;
        await store.recallBackend().append(scope, [{ type: 'reset', id: 'r', sessionId: 's', from: 0, at: 0 }]);
        await expect(store.recallBackend().read(scope)).resolves.toMatchObject({ records: [{ id: 'r' }] });
      } finally {
        await store.close();
      }
    });
  });

  describe('#setIfVersion', () => {
    it('never gives a value written again after a delete the version it had before', async () => {
      const store = new PostgresContextStore({ connectionString: server.url });
      try {
        const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}` });
        await store.set(k, { step: 1 });
        const before = await store.getVersioned(k);
        await store.delete(k);
        await store.set(k, { step: 1 });
        const after = await store.getVersioned(k);
        expect(after?.version).not.toBe(before?.version);
        const stale = await store.setIfVersion(k, { step: 'stale' }, before!.version);
        expect(stale).toEqual({ ok: false, current: after });
      } finally {
        await store.close();
      }
    });

    it('refuses a version it never gave out', async () => {
      const store = new PostgresContextStore({ connectionString: server.url });
      try {
        const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}` });
        await store.set(k, 'stored');
        const current = await store.getVersioned(k);
        for (const version of ['not-a-version', '99999999999999999999999', '']) {
          await expect(store.setIfVersion(k, 'overwritten', version)).resolves.toEqual({ ok: false, current });
        }
      } finally {
        await store.close();
      }
    });
  });

  describe('#get', () => {
    it('fails with StoreError for a stored value that is not JSON', async () => {
      const store = new PostgresContextStore({ connectionString: server.url });
      try {
        const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}` });
        await store.set(k, 'fine');
        await admin.query('UPDATE ctxkit_values SET value = $1 WHERE agent_id = $2', ['{not json', k.agentId]);
        const error = await storeFailureOf(() => store.get(k));
        expect(error.code).toBe(ErrorCodes.STORE_ERROR);
        expect(error.message).toContain('not valid JSON');
      } finally {
        await store.close();
      }
    });
  });

  describe('blobs', () => {
    let store: PostgresContextStore;

    beforeEach(() => {
      store = new PostgresContextStore({ connectionString: server.url, chunkSize: 1000 });
    });

    afterEach(async () => {
      await store.close();
    });

    it('joins small appends into shared parts, so a transcript written a line at a time stays few rows', async () => {
      const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}`, kind: 'transcript', name: 'lines' });
      const lines = Array.from({ length: 300 }, (_, index) => `${JSON.stringify({ index, text: 'x'.repeat(500) })}\n`);
      for (const line of lines) await store.appendBlob(k, line);
      const { rows } = await admin.query<{ parts: string }>(
        `SELECT count(*)::text AS parts FROM ctxkit_blob_parts
         WHERE blob_id = (SELECT blob_id FROM ctxkit_blobs WHERE agent_id = $1)`,
        [k.agentId],
      );
      expect(Number(rows[0]?.parts)).toBeLessThanOrEqual(4);
      expect((await readAll(store.readBlob(k))).toString('utf8')).toBe(lines.join(''));
    });

    it('ends a read at the size the blob had when it started, so appends during the read are safe', async () => {
      const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}`, kind: 'transcript', name: 'live' });
      await store.putBlob(k, 'a'.repeat(2500));
      const chunks: Buffer[] = [];
      for await (const chunk of store.readBlob(k)) {
        chunks.push(Buffer.from(chunk));
        if (chunks.length === 1) await store.appendBlob(k, 'b'.repeat(3000));
      }
      expect(Buffer.concat(chunks).toString('utf8')).toBe('a'.repeat(2500));
      await expect(store.blobSize(k)).resolves.toBe(5500);
    });

    it('fails a read whose blob is replaced or deleted while it is read', async () => {
      const changes = [(k: StoreKey) => store.putBlob(k, 'c'.repeat(5000)), (k: StoreKey) => store.deleteBlob(k)];
      for (const change of changes) {
        const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}`, kind: 'tool-output', name: 'output' });
        await store.putBlob(k, 'a'.repeat(5000));
        const error = await storeFailureOf(async () => {
          let first = true;
          for await (const _chunk of store.readBlob(k)) {
            if (first) await change(k);
            first = false;
          }
        });
        expect(error.code).toBe(ErrorCodes.STORE_ERROR);
        expect(error.message).toContain('deleted or replaced while it was read');
      }
    });

    it('keeps one whole blob, and no stray parts, when several processes replace it at once', async () => {
      const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}`, kind: 'tool-output', name: 'raced' });
      const others = Array.from({ length: 4 }, () => new PostgresContextStore({ connectionString: server.url }));
      try {
        const contents = others.map((_, index) => String(index).repeat(1_500_000 + index));
        await Promise.all(others.map((other, index) => other.putBlob(k, contents[index]!)));
        const stored = (await readAll(store.readBlob(k))).toString('utf8');
        expect(contents).toContain(stored);
        const { rows } = await admin.query<{ parts: string; bytes: string }>(
          `SELECT count(*)::text AS parts, coalesce(sum(length(data)), 0)::text AS bytes FROM ctxkit_blob_parts
           WHERE blob_id NOT IN (SELECT blob_id FROM ctxkit_blobs)`,
        );
        expect(rows[0]).toEqual({ parts: '0', bytes: '0' });
      } finally {
        await Promise.all(others.map((other) => other.close()));
      }
    });

    it('deletes a blob with its parts', async () => {
      const k = key({ agentId: `agent-${randomBytes(4).toString('hex')}`, kind: 'tool-output', name: 'big' });
      await store.putBlob(k, Buffer.alloc(3 * 1024 * 1024, 7));
      const { rows } = await admin.query<{ blob_id: string }>(
        'SELECT blob_id::text AS blob_id FROM ctxkit_blobs WHERE agent_id = $1',
        [k.agentId],
      );
      await expect(store.deleteBlob(k)).resolves.toBe(true);
      const left = await admin.query('SELECT 1 FROM ctxkit_blob_parts WHERE blob_id = $1', [rows[0]!.blob_id]);
      expect(left.rowCount).toBe(0);
    });
  });

  describe('#close', () => {
    it('fails every later call with StoreError', async () => {
      const store = new PostgresContextStore({ connectionString: server.url });
      await store.close();
      await store.close();
      const error = await storeFailureOf(() => store.get(key()));
      expect(error.code).toBe(ErrorCodes.STORE_ERROR);
      expect(error.message).toContain('the store is closed');
      const recall = await storeFailureOf(() =>
        store.recallBackend().read({ agentId: 'a', scope: 'session', id: 's' }),
      );
      expect(recall.code).toBe(ErrorCodes.STORE_ERROR);
    });

    it('leaves a pool it was given open, unless closePool is true', async () => {
      const pool = new Pool({ connectionString: server.url });
      pool.on('error', () => undefined);
      await new PostgresContextStore({ pool }).close();
      await expect(pool.query('SELECT 1')).resolves.toMatchObject({ rowCount: 1 });
      await new PostgresContextStore({ pool, closePool: true }).close();
      expect(pool.ended).toBe(true);
    });
  });

  describe('when no server is reachable', () => {
    it('fails every call with StoreError naming the redacted URL and how to fix it', async () => {
      const port = await unusedPort();
      const store = new PostgresContextStore({
        connectionString: `postgresql://app:s3cret@127.0.0.1:${port}/agents`,
        connectionTimeoutMs: 1000,
      });
      try {
        const calls: Array<() => Promise<unknown>> = [
          () => store.get(key()),
          () => store.set(key(), { destination: 'Tokyo' }),
          () => store.list({ agentId: 'booking-agent' }),
          () => store.putBlob(key({ kind: 'transcript', name: 't' }), 'x'),
          () => readAll(store.readBlob(key({ kind: 'transcript', name: 't' }))),
          () => store.recallBackend().read({ agentId: 'booking-agent', scope: 'resource', id: 'user-1' }),
        ];
        for (const call of calls) {
          const error = await storeFailureOf(call);
          expect(error.code).toBe(ErrorCodes.STORE_ERROR);
          expect(error.message).toContain(`cannot reach PostgreSQL at postgresql://app:***@127.0.0.1:${port}/agents`);
          expect(error.message).toContain('DATABASE_URL');
          expect(error.message).not.toContain('s3cret');
          expect(error.fix).toEqual(expect.any(String));
        }
      } finally {
        await store.close();
      }
    });
  });

  describe('when the server goes away mid-run', () => {
    it('fails with StoreError instead of hanging, and close still returns', async () => {
      const own = await startPostgresServer();
      const store = new PostgresContextStore({ connectionString: own.url, connectionTimeoutMs: 1000 });
      try {
        await store.set(key(), { destination: 'Tokyo' });
        await expect(store.get(key())).resolves.toEqual({ destination: 'Tokyo' });
        await own.kill();
        for (const call of [
          () => store.get(key()),
          () => store.set(key(), { destination: 'Osaka' }),
          () => store.appendBlob(key({ kind: 'transcript', name: 't' }), 'line\n'),
          () =>
            store
              .recallBackend()
              .append({ agentId: 'a', scope: 'session', id: 's' }, [
                { type: 'reset', id: 'r', sessionId: 's', from: 0, at: 0 },
              ]),
        ]) {
          const error = await storeFailureOf(call);
          expect(error.code).toBe(ErrorCodes.STORE_ERROR);
          expect(error.details).toMatchObject({ store: 'postgres' });
        }
      } finally {
        await store.close();
        await own.stop();
      }
    });
  });
});
