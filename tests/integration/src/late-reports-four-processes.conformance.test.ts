import 'reflect-metadata';

import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';
import { assertFleetWorkerBuilt, FleetProcess } from './redis-fleet/fleet-process';
import {
  type EntityView,
  EXTRACTOR_AGENT,
  type FleetAsk,
  SUMMARIZER_AGENT,
  type SummaryView,
  tauBench,
  turnCuts,
} from './redis-fleet/fleet-protocol';

/**
 * Four real Node processes on one redis-server serve six bundled tau-bench conversations at once,
 * with offline summarization and offline entity extraction, as a load balancer would: each request of
 * a conversation goes to another process, and some turn-end reports arrive late (after the next two
 * turns were handled), so that the shared summary or the entity read point is already past them. A
 * fifth process serves the same conversations in order, each on a session of its own. At the end the
 * shared state of each conversation is the in-order one: the same folds (none applied twice, none
 * lost), the same summary, the same entity state and versions.
 *
 * The workers run the built JavaScript (`dist/redis-fleet/fleet-worker.js`): build with `npx tsc -b` first.
 */

const CONVERSATIONS = 6;
const PROCESSES = 4;

let server: RedisServerProcess;
let store: RedisContextStore;
const workers: FleetProcess[] = [];

beforeAll(async () => {
  assertFleetWorkerBuilt();
  server = await startRedisServer();
  store = new RedisContextStore({ url: server.url });
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await store?.close();
  await server?.stop();
});

const summaryOf = async (session: string) =>
  (
    (await store.get({ agentId: SUMMARIZER_AGENT.id, sessionId: session, kind: 'summary', name: 'buffer' })) as
      { summary: SummaryView | null } | undefined
  )?.summary ?? null;
const entitiesOf = async (session: string) =>
  (await store.get({ agentId: EXTRACTOR_AGENT.id, sessionId: session, kind: 'entities', name: 'state' })) as
    EntityView | undefined;

/** Turn `k`'s compose and report, in the order they reach the processes: every third report two turns late. */
function requestOrder(turns: number): Array<{ kind: 'compose' | 'report'; turn: number; late: boolean }> {
  const order: Array<{ kind: 'compose' | 'report'; turn: number; late: boolean }> = [];
  const held = new Map<number, number>();
  for (let k = 0; k < turns; k++) {
    order.push({ kind: 'compose', turn: k, late: false });
    if (k % 3 === 1 && k + 2 < turns - 1) held.set(k + 2, k);
    else order.push({ kind: 'report', turn: k, late: false });
    const release = held.get(k);
    if (release !== undefined) order.push({ kind: 'report', turn: release, late: true });
  }
  return order;
}

// A run of its own processes: in `npm run test:conformance` (and CI), not in `npm test`, which it would take past its
// time.
const inConformanceRun = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';

(inConformanceRun ? it : it.skip)(
  'four processes serving six tau-bench conversations with interleaved and late turn reports end with the summary, ' +
    'folds and entity state of one process serving them in order',
  async () => {
    const records = tauBench()
      .map((record, index) => ({ record, index, cuts: turnCuts(record.history) }))
      .filter((entry) => entry.cuts.length >= 8)
      .slice(0, CONVERSATIONS);
    expect(records).toHaveLength(CONVERSATIONS);

    const reference = FleetProcess.start('in-order', server.url);
    const fleet = Array.from({ length: PROCESSES }, (_, index) => FleetProcess.start(`p${index}`, server.url));
    workers.push(reference, ...fleet);
    await Promise.all(workers.map((worker) => worker.ready));

    const problems: string[] = [];
    let lateBehindSummary = 0;
    let lateBehindExtraction = 0;

    const inOrder = async ({ index, cuts }: (typeof records)[number]) => {
      const session = `in-order-${index}`;
      for (const cut of cuts) {
        problems.push(
          ...((await reference.ask({ type: 'compose', session, record: index, messages: cut.request })).problems ?? []),
        );
        await reference.ask({ type: 'report', session, record: index, messages: cut.report });
      }
    };

    const interleaved = async ({ index, cuts }: (typeof records)[number], offset: number) => {
      const session = `shared-${index}`;
      for (const [step, request] of requestOrder(cuts.length).entries()) {
        const worker = fleet[(step + offset) % fleet.length]!;
        const cut = cuts[request.turn]!;
        if (request.late) {
          if (((await summaryOf(session))?.coveredMessages ?? 0) > cut.report) lateBehindSummary++;
          if (((await entitiesOf(session))?.processedThrough ?? -1) >= cut.report) lateBehindExtraction++;
        }
        const ask: FleetAsk = {
          type: request.kind,
          session,
          record: index,
          messages: request.kind === 'compose' ? cut.request : cut.report,
        };
        problems.push(...((await worker.ask(ask)).problems ?? []));
      }
    };

    await Promise.all([
      ...records.map((entry) => inOrder(entry)),
      ...records.map((entry, offset) => interleaved(entry, offset)),
    ]);

    let foldsCompared = 0;
    for (const { index } of records) {
      const [expectedFolds, sharedFolds] = await Promise.all([
        reference.ask({ type: 'inspect', session: `in-order-${index}` }),
        fleet[0]!.ask({ type: 'inspect', session: `shared-${index}` }),
      ]);
      // No fold applied twice, none lost: the same ranges, one after the other from message 0.
      expect({ index, folds: sharedFolds.folds }).toEqual({ index, folds: expectedFolds.folds });
      let end = 0;
      for (const range of sharedFolds.folds!) {
        const [from, to] = range.split('-').map(Number) as [number, number];
        expect({ index, range, from }).toEqual({ index, range, from: end });
        end = to;
      }
      foldsCompared += sharedFolds.folds!.length;

      const expectedSummary = await summaryOf(`in-order-${index}`);
      const sharedSummary = await summaryOf(`shared-${index}`);
      expect(expectedSummary).not.toBeNull();
      expect({ index, summary: pick(sharedSummary!) }).toEqual({ index, summary: pick(expectedSummary!) });
      expect(sharedSummary!.coveredMessages).toBe(end);

      const expectedEntities = (await entitiesOf(`in-order-${index}`))!;
      const sharedEntities = (await entitiesOf(`shared-${index}`))!;
      expect(Object.keys(expectedEntities.state).length).toBeGreaterThan(0);
      expect({ index, state: sharedEntities.state }).toEqual({ index, state: expectedEntities.state });
      // Every change is versioned once, onto the value the version before left (nothing overwritten
      // unversioned, nothing applied twice), and each field goes through the in-order values, in their
      // order (a late report's turn may have been read with the next one: one version for both).
      expect({ index, problems: chainProblems(sharedEntities) }).toEqual({ index, problems: [] });
      const inOrderValues = fieldValues(expectedEntities);
      for (const [field, values] of fieldValues(sharedEntities)) {
        expect({ index, field, values, isSubsequence: isSubsequence(values, inOrderValues.get(field) ?? []) }).toEqual({
          index,
          field,
          values,
          isSubsequence: true,
        });
      }
      const readAt = sharedEntities.versions.map((version) => version.sourceMessageIndex);
      expect(readAt).toEqual([...readAt].sort((x, y) => x - y));
      expect(sharedEntities.processedThrough).toBe(expectedEntities.processedThrough);
    }
    expect(foldsCompared).toBeGreaterThanOrEqual(CONVERSATIONS * 2);
    // Some late reports found the summary and the read point already past them.
    expect(lateBehindSummary).toBeGreaterThan(0);
    expect(lateBehindExtraction).toBeGreaterThan(0);

    expect(problems).toEqual([]);
    const stopped = await Promise.all(workers.map((worker) => worker.ask({ type: 'stop' })));
    expect(stopped.flatMap((result) => result.errors ?? [])).toEqual([]);
    expect(stopped.reduce((sum, result) => sum + (result.counts?.['summary-resync'] ?? 0), 0)).toBe(0);
  },
  60_000,
);

function pick(summary: SummaryView): SummaryView {
  const { version, coveredMessages, coveredTurns, fingerprint, text } = summary;
  return { version, coveredMessages, coveredTurns, fingerprint, text };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Where the versions, replayed from an empty state, do not chain: numbered 1, 2, 3…, each change from the value before
 * it, ending at the state.
 */
function chainProblems(entities: EntityView): string[] {
  const problems: string[] = [];
  const replayed: Record<string, unknown> = {};
  entities.versions.forEach((version, position) => {
    if (version.version !== position + 1) problems.push(`version ${version.version} at position ${position + 1}`);
    for (const change of version.diff) {
      if (!same(replayed[change.field], change.before))
        problems.push(
          `v${version.version} ${change.field}: before ${JSON.stringify(change.before)}, but the versions before ` +
            `left ${JSON.stringify(replayed[change.field])}`,
        );
      if (same(change.before, change.after))
        problems.push(`v${version.version} ${change.field}: a change to the same value`);
      replayed[change.field] = change.after;
    }
  });
  for (const [field, value] of Object.entries(entities.state))
    if (!same(replayed[field], value))
      problems.push(
        `${field}: the state holds ${JSON.stringify(value)}, the versions ${JSON.stringify(replayed[field])}`,
      );
  return problems;
}

/** The values each field took, version after version. */
function fieldValues(entities: EntityView): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const version of entities.versions)
    for (const change of version.diff)
      values.set(change.field, [...(values.get(change.field) ?? []), JSON.stringify(change.after)]);
  return values;
}

function isSubsequence(values: string[], of: string[]): boolean {
  let at = 0;
  for (const value of values) {
    while (at < of.length && of[at] !== value) at++;
    if (at === of.length) return false;
    at++;
  }
  return true;
}
