import 'reflect-metadata';

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ContextRuntime } from '@ctxkit/core';

import { goldenCeilings, goldenConversations, goldenRuntime, goldenStrategies } from './layout-golden/golden-cases';
import { type GoldenReplay, type GoldenStep, replayGolden } from './layout-golden/replay-golden';

/**
 * Byte identity of what the standard strategies produce: every strategy in its default and its
 * cache-related configurations (`cutBackRatio` 0.4 / `keepFirstShare` 0.6, pins through the session
 * layer), and the tool-output cache compacting with a scripted summary model (its checkpoint after
 * each compose, micro-compact `always` held by `minReclaimTokens`), replays bundled tau-bench
 * airline records, an OpenHands run and the bench's coding history, composing where an agent does
 * (before each assistant message, and at the end). Every step records the preview, the payload
 * (messages and tools), its stats and every event of the step (compose and turn completion);
 * strategies with undo then undo their newest epoch and compose once more. Each step is compared with
 * the fixture by SHA-256 (the first 8 hex digits of each part's digest: payload with the checkpoint's
 * result, stats, events, preview), so a test failure names the replay, the step and the part that
 * changed.
 *
 * Normalised on purpose (see `normalise`): epoch ids (random UUIDs) become `epoch-<n>` in order of
 * appearance, and wall-clock timings become 0. The clock strategies read is the runtime's own,
 * deterministic one (`goldenRuntime`), so timestamps are compared as they are.
 *
 * `npm test` replays a quick subset (within about 20 s); CTXKIT_CONFORMANCE_DEPTH=full replays every
 * tenth tau-bench record, every OpenHands run and two bench sizes at four ceilings.
 *
 * Regenerate the fixture after a deliberate change of output (and say why in the commit):
 *   CTXKIT_GOLDEN_WRITE=1 CTXKIT_CONFORMANCE_DEPTH=full npx jest layout-golden --maxWorkers=1
 * See what changed: dump the full steps on both commits and compare them:
 *   CTXKIT_GOLDEN_DUMP=before.jsonl npx jest layout-golden   (on the earlier commit; again as after.jsonl)
 *   node scripts/layout-golden-diff.js before.jsonl after.jsonl
 */

const FULL = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';
const WRITE = process.env.CTXKIT_GOLDEN_WRITE === '1';
const DUMP = process.env.CTXKIT_GOLDEN_DUMP;
const FIXTURE = path.join(__dirname, 'layout-golden', 'layout-golden.json');
const PARTS = ['payload', 'stats', 'events', 'preview'] as const;

/** The fixture: each replay's steps, one `payload:stats:events:preview` digest string per step. */
type Fixture = Record<string, string[]>;

function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex')
    .slice(0, 8);
}

function stepDigest(step: GoldenStep): string {
  const parts = {
    payload: { end: step.end, payload: step.payload, error: step.error, compaction: step.compaction },
    stats: step.stats,
    events: step.events,
    preview: step.preview,
  };
  return PARTS.map((part) => digest(parts[part])).join(':');
}

function readFixture(): Fixture {
  return fs.existsSync(FIXTURE) ? (JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Fixture) : {};
}

/** One replay a line, in name order, so that a regenerated fixture diffs by replay. */
function writeFixture(fixture: Fixture): void {
  const names = Object.keys(fixture).sort();
  fs.writeFileSync(
    FIXTURE,
    `{\n${names.map((name) => `  ${JSON.stringify(name)}: ${JSON.stringify(fixture[name])}`).join(',\n')}\n}\n`,
  );
}

/** Where `actual` first departs from `expected`, in words; undefined when they are the same. */
function divergence(replay: GoldenReplay, actual: string[], expected: string[] | undefined): string | undefined {
  if (expected === undefined) return `${replay.name}: not in the fixture (regenerate it: see the test's header)`;
  for (let index = 0; index < Math.max(actual.length, expected.length); index++) {
    if (actual[index] === expected[index]) continue;
    if (actual[index] === undefined || expected[index] === undefined)
      return `${replay.name}: ${actual.length} steps, the fixture has ${expected.length}`;
    const now = actual[index]!.split(':');
    const then = expected[index]!.split(':');
    const parts = PARTS.filter((_, part) => now[part] !== then[part]);
    return `${replay.name}: step ${index} (history length ${replay.steps[index]!.end}) differs in ${parts.join(', ')}`;
  }
  return undefined;
}

describe('layout golden: payloads, stats, events, previews and undo results are byte-identical', () => {
  let runtime: ContextRuntime;
  const fixture = readFixture();
  const written: Fixture = {};

  beforeAll(async () => {
    runtime = await goldenRuntime();
    if (DUMP) fs.writeFileSync(DUMP, '');
  });

  afterAll(async () => {
    await runtime.dispose();
    if (WRITE) writeFixture({ ...fixture, ...written });
  });

  for (const strategy of goldenStrategies()) {
    it(`${strategy.name}: ${FULL ? 'full' : 'quick'} replays`, async () => {
      const problems: string[] = [];
      for (const conversation of goldenConversations(FULL)) {
        for (const ceiling of goldenCeilings(FULL)) {
          const replay = await replayGolden(runtime, strategy, conversation, ceiling);
          const digests = replay.steps.map(stepDigest);
          if (DUMP) fs.appendFileSync(DUMP, `${JSON.stringify(replay)}\n`);
          if (WRITE) written[replay.name] = digests;
          else {
            const problem = divergence(replay, digests, fixture[replay.name]);
            if (problem !== undefined) problems.push(problem);
          }
        }
      }
      expect(problems).toEqual([]);
    }, 600_000);
  }
});
