import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A redis-server child process on loopback, started for one test file. */
export interface RedisServerProcess {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. Safe to call more than once. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash or a lost machine would. */
  kill(): Promise<void>;
}

/** The server binary: `REDIS_SERVER_BIN`, else `redis-server` from PATH. */
const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

const missingServerMessage = (binary: string) =>
  `The Redis store tests need a real redis-server, and "${binary}" could not be run. ` +
  'Install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or set ' +
  'REDIS_SERVER_BIN to its path. These tests are never skipped.';

/** Asks the OS for a free loopback port (redis-server does not accept `--port 0`). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Resolves once the server answers, with whether it is the one working in `dir` (`CONFIG GET dir`):
 * another server that took the port between the free-port probe and this one's bind answers too.
 */
function answersFrom(port: number, dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (data) => {
      reply += data.toString('utf8');
      // An error line, or the two-element array: *2, $3, dir, $<length>, <path>.
      if (reply.startsWith('-')) done(false);
      else if (reply.split('\r\n').length > 5) done(reply.includes(`\r\n${dir}\r\n`));
    });
    socket.once('connect', () => socket.write('CONFIG GET dir\r\n'));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts a redis-server on 127.0.0.1 with a free port, no persistence (`--save ''`,
 * `--appendonly no`), in a temporary directory, and waits until it answers. Throws a clear error
 * when redis-server is not installed: the tests fail, they do not skip.
 */
export async function startRedisServer(binary: string = REDIS_SERVER_BIN): Promise<RedisServerProcess> {
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(missingServerMessage(binary));

  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'ctxkit-redis-'));
    const child = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(child);
    let output = '';
    child.stdout?.on('data', (data: Buffer) => (output += data.toString('utf8')));
    child.stderr?.on('data', (data: Buffer) => (output += data.toString('utf8')));
    child.once('exit', () => running.delete(child));

    const deadline = Date.now() + 10_000;
    let ready = false;
    while (!ready && Date.now() < deadline && child.exitCode === null) {
      ready = await answersFrom(port, realpathSync(dir));
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (ready) {
      const finish = async (signal: NodeJS.Signals) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited(child);
        rmSync(dir, { recursive: true, force: true });
      };
      return { url: `redis://127.0.0.1:${port}`, port, stop: () => finish('SIGTERM'), kill: () => finish('SIGKILL') };
    }
    lastFailure = output.trim().split('\n').slice(-3).join(' | ');
    child.kill('SIGKILL');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`redis-server did not start on loopback after 5 attempts: ${lastFailure}`);
}
