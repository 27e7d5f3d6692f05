#!/usr/bin/env node
// Compares two dumps of the layout golden test (CTXKIT_GOLDEN_DUMP=<file>, one replay a line) and
// prints, for each replay that differs, its first differing step: which parts differ and, for each,
// the first differing path with both values. `--full` prints both steps' differing parts whole;
// `--ignore-key=<name>` leaves out every field of that name on both sides (a field added on purpose).
//   node scripts/layout-golden-diff.js before.jsonl after.jsonl [--full] [--ignore-key=<name>]
'use strict';
const fs = require('node:fs');

const [beforeFile, afterFile] = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const full = process.argv.includes('--full');
const ignored = new Set(
  process.argv
    .filter((argument) => argument.startsWith('--ignore-key='))
    .map((argument) => argument.slice('--ignore-key='.length)),
);

function load(file) {
  const replays = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n'))
    if (line.trim()) {
      const replay = JSON.parse(line, (key, value) => (ignored.has(key) ? undefined : value));
      replays.set(replay.name, replay);
    }
  return replays;
}

/** The first path where `a` and `b` differ, with both values there; undefined when they are equal. */
function firstDifference(a, b, at = '') {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const found = firstDifference(a[key], b[key], `${at}${Array.isArray(a) ? `[${key}]` : `.${key}`}`);
      if (found) return found;
    }
    return { at: `${at} (key order)`, before: Object.keys(a), after: Object.keys(b) };
  }
  return { at: at || '(root)', before: a, after: b };
}

/** Prints where the two dumps differ; the exit code is 1 when any replay differs. */
function compareDumps() {
  const before = load(beforeFile);
  const after = load(afterFile);
  let differing = 0;
  for (const [name, then] of before) {
    const now = after.get(name);
    if (!now) {
      console.log(`${name}: missing from ${afterFile}`);
      differing++;
      continue;
    }
    const steps = Math.max(then.steps.length, now.steps.length);
    for (let index = 0; index < steps; index++) {
      const a = then.steps[index];
      const b = now.steps[index];
      if (JSON.stringify(a) === JSON.stringify(b)) continue;
      differing++;
      console.log(`\n${name}: step ${index} (history length ${(a ?? b).end})`);
      for (const part of ['end', 'payload', 'error', 'stats', 'events', 'preview']) {
        const found = firstDifference(a?.[part], b?.[part]);
        if (!found) continue;
        console.log(`  ${part} differs at ${found.at}`);
        console.log(`    before: ${JSON.stringify(full ? a?.[part] : found.before)?.slice(0, full ? undefined : 600)}`);
        console.log(`    after:  ${JSON.stringify(full ? b?.[part] : found.after)?.slice(0, full ? undefined : 600)}`);
      }
      break;
    }
  }
  for (const name of after.keys()) if (!before.has(name)) console.log(`${name}: only in ${afterFile}`);
  console.log(`\n${differing} replay(s) differ`);
  process.exitCode = differing > 0 ? 1 : 0;
}

if (!beforeFile || !afterFile) {
  process.stderr.write(
    'usage: node scripts/layout-golden-diff.js before.jsonl after.jsonl [--full] [--ignore-key=<name>]\n',
  );
  process.exitCode = 2;
} else {
  compareDumps();
}
