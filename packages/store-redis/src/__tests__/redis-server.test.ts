import net from 'node:net';

import { startRedisServer } from './redis-server';

describe('startRedisServer', () => {
  it('fails with install instructions when redis-server cannot be run', async () => {
    await expect(startRedisServer('redis-server-that-does-not-exist')).rejects.toThrow(
      /need a real redis-server.*apt-get install -y redis-server.*never skipped/,
    );
  });

  it('starts a server on a free loopback port and stops it', async () => {
    const server = await startRedisServer();
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    await server.stop();
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
