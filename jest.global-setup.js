// Runs once before the test run: the Redis store tests need a real redis-server on loopback, and the
// PostgreSQL store tests PostgreSQL's server binaries (initdb, postgres) to start a private server.
// When one is missing and this process may install packages (root with apt-get, as on a fresh CI
// machine or container), it is installed here, once; otherwise those tests fail with the command to
// run. REDIS_SERVER_BIN points at another redis-server, POSTGRES_BIN_DIR at another directory
// holding initdb and postgres.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

function runs(binary) {
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0;
}

function aptGet(args) {
  const result = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 600_000,
  });
  return !result.error && result.status === 0;
}

function mayInstall() {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return root && !spawnSync('apt-get', ['--version']).error;
}

/** Installs a Debian package; a failed install is tried once more after refreshing the package lists. */
function aptInstall(name) {
  if (!aptGet(['install', '-y', '-qq', name])) {
    aptGet(['update', '-qq']);
    aptGet(['install', '-y', '-qq', name]);
  }
}

function provideRedisServer() {
  const binary = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  if (runs(binary) || binary !== 'redis-server') return;
  if (mayInstall()) {
    process.stderr.write(
      '\nredis-server is not installed; installing it for the Redis store tests (apt-get install redis-server)...\n',
    );
    aptInstall('redis-server');
    if (runs(binary)) return;
  }
  process.stderr.write(
    '\nThe Redis store tests need redis-server and it could not be installed here. ' +
      'Install it (Debian/Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis) ' +
      'or set REDIS_SERVER_BIN to its path, then run npm test again.\n',
  );
}

/**
 * Whether initdb and postgres can be found where the PostgreSQL store tests look
 * (packages/store-postgres/src/__tests__/postgres-server.ts): Debian's /usr/lib/postgresql/<version>/bin
 * (not on PATH there), else PATH.
 */
function hasPostgresBinaries() {
  const both = (dir) => runs(path.join(dir, 'initdb')) && runs(path.join(dir, 'postgres'));
  const debianRoot = '/usr/lib/postgresql';
  if (fs.existsSync(debianRoot)) {
    for (const version of fs.readdirSync(debianRoot)) if (both(path.join(debianRoot, version, 'bin'))) return true;
  }
  return runs('initdb') && runs('postgres');
}

function providePostgres() {
  if (process.env.POSTGRES_BIN_DIR || hasPostgresBinaries()) return;
  if (mayInstall()) {
    process.stderr.write(
      '\nPostgreSQL is not installed; installing it for the PostgreSQL store tests (apt-get install postgresql)...\n',
    );
    aptInstall('postgresql');
    if (hasPostgresBinaries()) return;
  }
  process.stderr.write(
    '\nThe PostgreSQL store tests need PostgreSQL (initdb and postgres) and it could not be installed here. ' +
      'Install it (Debian/Ubuntu: sudo apt-get install -y postgresql; macOS: brew install postgresql) ' +
      'or set POSTGRES_BIN_DIR to the directory that holds initdb and postgres, then run npm test again.\n',
  );
}

module.exports = async function provideStoreServers() {
  provideRedisServer();
  providePostgres();
};
