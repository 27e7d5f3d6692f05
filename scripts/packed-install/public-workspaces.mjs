// Prints this repository's public workspace packages (not "private": true), the packages a release
// publishes: one a line, as `<name> <location relative to the root>`.
import { execFileSync } from 'node:child_process';

const windows = process.platform === 'win32';
const workspaces = JSON.parse(
  execFileSync(windows ? 'npm.cmd' : 'npm', ['query', '.workspace'], { encoding: 'utf8', shell: windows }),
);
const lines = workspaces
  .filter((workspace) => workspace.private !== true)
  .map((workspace) => `${workspace.name} ${workspace.location}`)
  .sort();
if (lines.length === 0) {
  console.error('No public workspace package found: every workspace is private.');
  process.exitCode = 1;
} else {
  console.log(lines.join('\n'));
}
