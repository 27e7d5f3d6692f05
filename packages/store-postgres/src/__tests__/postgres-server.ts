import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from 'pg';

/** A private PostgreSQL server on loopback, started for one test file. */
export interface PostgresServerProcess {
  /** `postgresql://postgres@127.0.0.1:<port>/ctxkit`: a database of its own, no password. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown), waits for it to exit and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Ends the server at once (immediate shutdown), as a crash or a lost machine would. */
  kill(): Promise<void>;
}

/** Where `initdb` and `postgres` are. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Where they were found, for messages. */
  source: string;
}

/** The database every server gets, so tests never write to the `postgres` maintenance database. */
const DATABASE = 'ctxkit';
/** Debian's `postgresql` package creates this system user; PostgreSQL runs as it when we are root. */
const SERVER_USER = 'postgres';

const INSTALL_HINT =
  'Install them (Debian/Ubuntu: apt-get install -y postgresql; macOS: brew install postgresql) or set ' +
  'POSTGRES_BIN_DIR to the directory that holds initdb and postgres. These tests are never skipped.';

function runs(binary: string): boolean {
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0;
}

function pairIn(dir: string, source: string): PostgresBinaries | undefined {
  const initdb = path.join(dir, 'initdb');
  const postgres = path.join(dir, 'postgres');
  return runs(initdb) && runs(postgres) ? { initdb, postgres, source } : undefined;
}

/**
 * The server binaries: `POSTGRES_BIN_DIR` when set (and nothing else then), else Debian's
 * `/usr/lib/postgresql/<highest version>/bin` (not on PATH there), else `initdb` and `postgres` from
 * PATH. `jest.global-setup.js` looks in the same places before it installs anything.
 */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): PostgresBinaries | undefined {
  const configured = env.POSTGRES_BIN_DIR;
  if (configured) return pairIn(configured, `POSTGRES_BIN_DIR=${configured}`);
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    for (const version of versions) {
      const found = pairIn(path.join(debianRoot, version, 'bin'), `${debianRoot}/${version}/bin`);
      if (found) return found;
    }
  }
  return runs('initdb') && runs('postgres') ? { initdb: 'initdb', postgres: 'postgres', source: 'PATH' } : undefined;
}

/** The ids to run the server as: PostgreSQL refuses to run as root, so root hands it to `postgres`. */
function serverIdentity(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', SERVER_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SERVER_USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no "${SERVER_USER}" user to run the test server as. ` +
        `Create one (useradd --system --user-group ${SERVER_USER}; Debian's postgresql package does) ` +
        'or run the tests as another user.',
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * A fresh directory for one server. When the server runs as another user, it must own the directory
 * and reach it: a private TMPDIR (such as one under /root) falls back to /tmp.
 */
function serverDirectory(identity: { uid: number; gid: number } | undefined): string {
  let base = tmpdir();
  if (identity && (statSync(base).mode & 0o001) === 0) base = '/tmp';
  const dir = mkdtempSync(path.join(base, 'ctxkit-postgres-'));
  if (identity) chownSync(dir, identity.uid, identity.gid);
  return dir;
}

/** Asks the OS for a free loopback port. */
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

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Runs a statement on the maintenance database and returns its rows. */
async function query(port: number, sql: string): Promise<Record<string, unknown>[]> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 1000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Servers not stopped yet, with their directories: ended and removed when the test process exits. */
const running = new Map<ChildProcess, string>();
process.once('exit', () => {
  for (const [child, dir] of running) {
    // Immediate shutdown: the postmaster takes its backends with it (SIGKILL would orphan them).
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Starts a private PostgreSQL server for one test file: `initdb` into a fresh temporary directory
 * (trust authentication, no fsync), `postgres` on 127.0.0.1 with a free port and its unix socket in
 * that directory, then a database `ctxkit`. As root, both run as the `postgres` system user. Throws
 * a clear error when the binaries are missing: the tests fail, they do not skip. `env` is where
 * `POSTGRES_BIN_DIR` is read.
 */
export async function startPostgresServer(env: NodeJS.ProcessEnv = process.env): Promise<PostgresServerProcess> {
  const binaries = findPostgresBinaries(env);
  if (!binaries) {
    const searched = env.POSTGRES_BIN_DIR
      ? `in POSTGRES_BIN_DIR (${env.POSTGRES_BIN_DIR})`
      : 'in /usr/lib/postgresql/<version>/bin or on PATH';
    throw new Error(
      'The PostgreSQL store tests need a real PostgreSQL server, and its binaries (initdb, postgres) were not found ' +
        `${searched}. ${INSTALL_HINT}`,
    );
  }
  const identity = serverIdentity();
  const asServerUser = identity ?? {};

  let lastFailure = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const dir = serverDirectory(identity);
    const data = path.join(dir, 'data');
    const init = spawnSync(
      binaries.initdb,
      ['-D', data, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
      { encoding: 'utf8', ...asServerUser },
    );
    if (init.error || init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      const output = (init.error?.message ?? `${init.stdout}${init.stderr}`).trim().split('\n').slice(-3).join(' | ');
      throw new Error(`initdb (${binaries.source}) failed: ${output}. ${INSTALL_HINT}`);
    }
    const port = await freePort();
    const name = path.basename(dir);
    const child = spawn(
      binaries.postgres,
      [
        '-D',
        data,
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-k',
        dir,
        // A throwaway server: durability buys nothing here, and these keep the tests fast.
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'shared_buffers=32MB',
        '-c',
        'max_connections=100',
        // Names this server, so the readiness check knows it reached this one and not another that
        // took the port between the free-port probe and this server's bind.
        '-c',
        `cluster_name=${name}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...asServerUser },
    );
    running.set(child, dir);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));

    const deadline = Date.now() + 15_000;
    let ready = false;
    let elsewhere = false;
    while (!ready && !elsewhere && Date.now() < deadline && child.exitCode === null) {
      const answered = await query(port, "SELECT current_setting('cluster_name') AS name").then(
        (rows) => rows[0]?.name,
        () => undefined,
      );
      ready = answered === name;
      elsewhere = answered !== undefined && !ready;
      if (!ready && !elsewhere) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const finish = async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited(child);
      running.delete(child);
      rmSync(dir, { recursive: true, force: true });
    };
    if (ready) {
      await query(port, `CREATE DATABASE ${DATABASE}`).catch(async (cause: unknown) => {
        await finish('SIGQUIT');
        throw new Error(`PostgreSQL (${binaries.source}) started but CREATE DATABASE failed: ${String(cause)}`);
      });
      return {
        url: `postgresql://postgres@127.0.0.1:${port}/${DATABASE}`,
        port,
        // SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for every client to leave).
        stop: () => finish('SIGINT'),
        kill: () => finish('SIGQUIT'),
      };
    }
    lastFailure = elsewhere
      ? `another PostgreSQL server answered on port ${port}`
      : output.trim().split('\n').slice(-3).join(' | ');
    await finish('SIGQUIT');
  }
  throw new Error(`PostgreSQL (${binaries.source}) did not start on loopback after 5 attempts: ${lastFailure}`);
}
