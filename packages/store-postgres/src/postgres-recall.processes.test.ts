import path from 'node:path';

import { runRecallProcessesScenario } from '@ctxkit/core/testing';

import { startPostgresServer } from './__tests__/postgres-server';
import { PostgresContextStore, type PostgresContextStoreOptions } from './postgres-context-store';

/**
 * Two real Node processes share recall over one PostgreSQL server (`runRecallProcessesScenario`),
 * through the store's own recall backend (the log in `<prefix>_recall`, not JSON lines in a blob):
 * each recalls what the other indexed, the resource's log holds every turn once, another resource
 * recalls none of it. The workers run the built packages (`__tests__/recall-store.js`): `npx tsc -b` first.
 */
runRecallProcessesScenario<PostgresContextStoreOptions>('PostgresContextStore', {
  storeModule: path.join(__dirname, '__tests__', 'recall-store.js'),
  start: async () => {
    const server = await startPostgresServer();
    return {
      storeOptions: { connectionString: server.url, tablePrefix: 'recall_processes' },
      stop: () => server.stop(),
    };
  },
  openStore: (options) => new PostgresContextStore(options),
  ownRecallBackend: true,
});
