import { runStoreContract } from '@ctxkit/core/testing';

import { type RedisServerProcess, startRedisServer } from './__tests__/redis-server';
import { RedisContextStore } from './redis-context-store';

let server: RedisServerProcess;

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await server?.stop();
});

runStoreContract('RedisContextStore', async () => new RedisContextStore({ url: server.url }));

// A small chunk size makes every blob test cross many GETRANGE boundaries.
runStoreContract(
  'RedisContextStore (4 KiB chunks, custom prefix)',
  async () => new RedisContextStore({ url: server.url, chunkSize: 4096, keyPrefix: 'app:ctxkit' }),
  undefined,
  { largeBlobBytes: 3 * 1024 * 1024 + 17 },
);

runStoreContract(
  'RedisContextStore (ttlSeconds: 3600)',
  async () => new RedisContextStore({ url: server.url, ttlSeconds: 3600 }),
  undefined,
  {
    largeBlobBytes: 2 * 1024 * 1024,
  },
);
