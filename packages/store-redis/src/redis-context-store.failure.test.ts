import net from 'node:net';

import { ErrorCodes, type StoreKey } from '@ctxkit/core';
import { storeFailureOf } from '@ctxkit/core/testing';
import { Redis } from 'ioredis';

import { startRedisServer } from './__tests__/redis-server';
import { RedisContextStore } from './redis-context-store';

const key = (overrides: Partial<StoreKey> = {}): StoreKey => ({
  agentId: 'booking-agent',
  sessionId: 'trip-7',
  kind: 'entities',
  name: 'state',
  ...overrides,
});

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _chunk of chunks) {
    // read to the end
  }
}

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

describe('RedisContextStore', () => {
  describe('when no server is reachable', () => {
    it('fails every call with StoreError naming the redacted URL and how to fix it', async () => {
      const port = await unusedPort();
      const store = new RedisContextStore({ url: `redis://:s3cret@127.0.0.1:${port}`, commandTimeoutMs: 1000 });
      try {
        const calls: Array<() => Promise<unknown>> = [
          () => store.get(key()),
          () => store.set(key(), { destination: 'Tokyo' }),
          () => store.list({ agentId: 'booking-agent' }),
          () => store.putBlob(key({ kind: 'transcript', name: 't' }), 'x'),
          () => drain(store.readBlob(key({ kind: 'transcript', name: 't' }))),
        ];
        for (const call of calls) {
          const error = await storeFailureOf(call);
          expect(error.code).toBe(ErrorCodes.STORE_ERROR);
          expect(error.message).toContain(`cannot reach Redis at redis://:***@127.0.0.1:${port}`);
          expect(error.message).toContain('REDIS_URL');
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
      const server = await startRedisServer();
      const store = new RedisContextStore({ url: server.url, commandTimeoutMs: 1000 });
      try {
        await store.set(key(), { destination: 'Tokyo' });
        await expect(store.get(key())).resolves.toEqual({ destination: 'Tokyo' });
        await server.kill();
        for (const call of [
          () => store.get(key()),
          () => store.set(key(), { destination: 'Osaka' }),
          () => store.appendBlob(key({ kind: 'transcript', name: 't' }), 'line\n'),
          () => store.writeAtomically([{ op: 'set', key: key(), value: 1 }]),
        ]) {
          const error = await storeFailureOf(call);
          expect(error.code).toBe(ErrorCodes.STORE_ERROR);
          expect(error.details).toMatchObject({ store: 'redis' });
        }
      } finally {
        await store.close();
        await server.stop();
      }
    });

    it('leaves no partial batch behind when the connection drops before EXEC', async () => {
      const server = await startRedisServer();
      const admin = new Redis(server.url);
      const store = new RedisContextStore({ url: server.url, commandTimeoutMs: 5000 });
      try {
        await store.set(key({ name: 'before' }), 'committed earlier');
        const clients = ((await admin.client('LIST')) as string)
          .split('\n')
          .filter((line) => line.includes('name=ctxkit-store'));
        expect(clients).toHaveLength(1);
        const storeClientId = /\bid=(\d+)/.exec(clients[0] ?? '')?.[1];
        expect(storeClientId).toMatch(/^\d+$/);

        // Hold writes so the store's EXEC waits in the server, then cut the store's connection.
        await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
        const batch = store.writeAtomically([
          { op: 'set', key: key({ name: 'a' }), value: { part: 1 } },
          { op: 'putBlob', key: key({ kind: 'tool-output', name: 'b' }), data: 'x'.repeat(100_000) },
          { op: 'set', key: key({ name: 'c' }), value: { part: 3 } },
        ]);
        const failure = storeFailureOf(() => batch);
        for (let i = 0; i < 200; i += 1) {
          const list = (await admin.client('LIST')) as string;
          if (/name=ctxkit-store[^\n]*cmd=exec/.test(list)) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await admin.call('CLIENT', 'KILL', 'ID', storeClientId ?? '');
        await admin.call('CLIENT', 'UNPAUSE');

        const error = await failure;
        expect(error.code).toBe(ErrorCodes.STORE_ERROR);
        const keys = (await admin.keys('ctxkit:*')).sort();
        expect(keys).toEqual(['ctxkit:booking-agent:trip-7:entities:before']);
      } finally {
        await store.close();
        admin.disconnect();
        await server.stop();
      }
    });
  });
});
