// Checks what `npm pack --json` says it packed against each package.json: every file the package
// points at (main, types, bin, exports, the ctxkit plugin manifest and the manifest's entry) is in
// the tarball, and no test file or build info is. Usage: node check-pack-contents.mjs <pack.json> <repo>
import * as fs from 'node:fs';
import * as path from 'node:path';

const [packJson, repo] = process.argv.slice(2);
const packs = JSON.parse(fs.readFileSync(packJson, 'utf8'));
const problems = [];

/** The relative file paths a package.json field points at (strings, nested objects of conditions, or arrays). */
function targets(value) {
  if (typeof value === 'string') return value.includes('*') ? [] : [value];
  if (Array.isArray(value)) return value.flatMap(targets);
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

const normalise = (file) => path.posix.normalize(file.replace(/^\.\//, ''));

const locations = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8')).packages;
for (const pack of packs) {
  const dir = Object.keys(locations).find((key) => !key.includes('node_modules') && locations[key].name === pack.name);
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, dir, 'package.json'), 'utf8'));
  const files = new Set(pack.files.map((file) => normalise(file.path)));
  const expected = [manifest.main, manifest.types, ...targets(manifest.bin), ...targets(manifest.exports)]
    .filter(Boolean)
    .map(normalise);
  const pluginField = manifest.ctxkit?.plugin;
  if (typeof pluginField === 'string') {
    expected.push(normalise(pluginField));
    const plugin = JSON.parse(fs.readFileSync(path.join(repo, dir, pluginField), 'utf8'));
    if (typeof plugin.entry === 'string')
      expected.push(normalise(path.posix.join(path.posix.dirname(normalise(pluginField)), plugin.entry)));
  }
  for (const file of expected)
    if (!files.has(file))
      problems.push(
        `${pack.name}: ${file} is named in package.json but not in the tarball (its "files" field leaves it out, ` +
          `or it is not built).`,
      );
  for (const file of files) {
    if (/\.test\.[cm]?[jt]s$|\.test\.d\.ts$|(^|\/)__fixtures__\/|\.tsbuildinfo$/.test(file))
      problems.push(`${pack.name}: ${file} is a test or build file; leave it out with the "files" field.`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else {
  console.log(
    packs.map((pack) => `${pack.filename}: ${pack.entryCount} files, ${Math.round(pack.size / 1024)} KiB`).join('\n'),
  );
}
