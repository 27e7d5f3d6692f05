// Runs once before the test run: the Redis store tests need a real redis-server on loopback.
// When it is missing and this process may install packages (root with apt-get, as on a fresh CI
// machine or container), it is installed here, once; otherwise the store tests fail with the
// command to run. REDIS_SERVER_BIN points at another binary.
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

module.exports = async function provideRedisServer() {
  const binary = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  if (runs(binary) || binary !== 'redis-server') return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasAptGet = !spawnSync('apt-get', ['--version']).error;
  if (root && hasAptGet) {
    process.stderr.write('\nredis-server is not installed; installing it for the Redis store tests (apt-get install redis-server)...\n');
    if (!aptGet(['install', '-y', '-qq', 'redis-server'])) {
      aptGet(['update', '-qq']);
      aptGet(['install', '-y', '-qq', 'redis-server']);
    }
    if (runs(binary)) return;
  }
  process.stderr.write(
    '\nThe Redis store tests need redis-server and it could not be installed here. ' +
      'Install it (Debian/Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis) ' +
      'or set REDIS_SERVER_BIN to its path, then run npm test again.\n',
  );
};
