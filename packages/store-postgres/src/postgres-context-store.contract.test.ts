import { runRecallBackendContract, runStoreContract } from '@ctxkit/core/testing';

import { type PostgresServerProcess, startPostgresServer } from './__tests__/postgres-server';
import { PostgresContextStore } from './postgres-context-store';

let server: PostgresServerProcess;

beforeAll(async () => {
  server = await startPostgresServer();
});

afterAll(async () => {
  await server?.stop();
});

runStoreContract('PostgresContextStore', async () => new PostgresContextStore({ connectionString: server.url }));

// A small chunk size makes every blob test cross many chunk boundaries; its own schema and prefix
// check that every statement uses the configured names.
runStoreContract(
  'PostgresContextStore (4 KiB chunks, schema and prefix)',
  async () =>
    new PostgresContextStore({
      connectionString: server.url,
      chunkSize: 4096,
      schema: 'agents',
      tablePrefix: 'app_ctx',
    }),
  undefined,
  { largeBlobBytes: 3 * 1024 * 1024 + 17 },
);

// Two stores on one database are two processes' views of it.
runRecallBackendContract(
  'PostgresRecallBackend',
  async () => {
    const first = new PostgresContextStore({ connectionString: server.url });
    const second = new PostgresContextStore({ connectionString: server.url });
    return {
      backend: first.recallBackend(),
      other: second.recallBackend(),
      close: async () => {
        await first.close();
        await second.close();
      },
    };
  },
  { search: true },
);
