import { existsSync } from 'node:fs';
import net from 'node:net';

import { Client } from 'pg';

import { findPostgresBinaries, startPostgresServer } from './postgres-server';

describe('startPostgresServer', () => {
  it('fails with install instructions when the server binaries cannot be found', async () => {
    const env = { POSTGRES_BIN_DIR: '/nonexistent/postgresql/bin' };
    expect(findPostgresBinaries(env)).toBeUndefined();
    await expect(startPostgresServer(env)).rejects.toThrow(
      /need a real PostgreSQL server.*apt-get install -y postgresql.*never skipped/,
    );
  });

  it('starts a private server with its own database on a free loopback port, and stop removes it', async () => {
    const server = await startPostgresServer();
    expect(server.url).toBe(`postgresql://postgres@127.0.0.1:${server.port}/ctxkit`);
    const client = new Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ database: string; directory: string }>(
      "SELECT current_database() AS database, current_setting('data_directory') AS directory",
    );
    await client.end();
    expect(rows[0]?.database).toBe('ctxkit');
    expect(existsSync(rows[0]!.directory)).toBe(true);

    await server.stop();
    await server.stop();
    expect(existsSync(rows[0]!.directory)).toBe(false);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: server.port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
