// One jest run over every workspace that has tests (packages, plugins, examples, tests, bench).
const fs = require('node:fs');
const path = require('node:path');
const { project } = require('./jest.preset');

const groups = ['packages', 'plugins', 'examples', 'tests'];
const dirs = [];
for (const group of groups) {
  const base = path.join(__dirname, group);
  if (!fs.existsSync(base)) continue;
  for (const name of fs.readdirSync(base).sort()) {
    const dir = path.join(base, name);
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'tsconfig.json'))) dirs.push(dir);
  }
}

module.exports = {
  projects: dirs.map(project),
  // jest's default leaves one core to its parent process, which only waits: on a 2-core machine
  // that is one worker for the whole suite. Use every core.
  maxWorkers: '100%',
  globalSetup: path.join(__dirname, 'jest.global-setup.js'),
  testTimeout: 30000,
};
