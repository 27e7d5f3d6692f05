import path from 'node:path';

import { runRecallProcessesScenario } from '@ctxkit/core/testing';

import { startRedisServer } from './__tests__/redis-server';
import { RedisContextStore, type RedisContextStoreOptions } from './redis-context-store';

/**
 * Two real Node processes share recall over one redis-server (`runRecallProcessesScenario`): each
 * recalls what the other indexed, the resource's log holds every turn once, another resource recalls
 * none of it. The workers run the built packages (`__tests__/recall-store.js`): `npx tsc -b` first.
 */
runRecallProcessesScenario<RedisContextStoreOptions>('RedisContextStore', {
  storeModule: path.join(__dirname, '__tests__', 'recall-store.js'),
  start: async () => {
    const server = await startRedisServer();
    return { storeOptions: { url: server.url }, stop: () => server.stop() };
  },
  openStore: (options) => new RedisContextStore(options),
});
