import 'reflect-metadata';

import * as fs from 'node:fs';

import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';
import { assertFleetWorkerBuilt, FleetProcess, WorkerGoneError } from './redis-fleet/fleet-process';
import {
  type EntityView,
  EXTRACTOR_AGENT,
  type FleetAsk,
  type FleetResult,
  SUMMARIZER_AGENT,
  type SummaryView,
  tauBench,
  turnCuts,
} from './redis-fleet/fleet-protocol';
import { percentile, soakSize } from './redis-fleet/soak-size';

/**
 * The soak: worker processes on one redis-server serve tau-bench conversations in many sessions at
 * once, each request to a random process (as a load balancer would), under offline summarization and
 * offline entity extraction: turns (some turn reports held back and sent while another process handles
 * the next turn, so that they overlap it or arrive after it), folds, extractions, pins and unpins (at
 * the same time as the turn, in other processes), undos of folds (between turns),
 * while a random process is killed (`kill -9`) every few seconds and
 * started again. A request whose process died is sent again to another one, as a client would. Checked
 * at the end, for every session: every payload was provider-valid; no message was folded twice and the
 * summary covers every recorded fold (or, after an undo whose process died, ends where a recorded fold
 * starts: the summary from before it was written back, and the epoch goes at the next fold over its
 * messages); the entity versions chain (each change made once, onto the
 * value the version before left) to the state one process serving the conversation in order reaches
 * (no update lost); every acknowledged pin is there once, every acknowledged unpin gone. It prints
 * p50/p99 compose latency and the throughput (docs/09-stores.md quotes them).
 *
 * Bounded by default (4 processes, 20 sessions, 30 s); `CTXKIT_SOAK=full` runs 8 processes, 200
 * sessions, 5 minutes (see soak-size.ts for each figure's variable). `CTXKIT_SOAK_REPORT=<file>` also
 * writes the figures as JSON. The workers run the built JavaScript: build with `npx tsc -b` first.
 */

const size = soakSize();

let server: RedisServerProcess;
let store: RedisContextStore;
const slots: FleetProcess[] = [];
const everyProcess: FleetProcess[] = [];

beforeAll(async () => {
  assertFleetWorkerBuilt();
  server = await startRedisServer();
  store = new RedisContextStore({ url: server.url });
});

afterAll(async () => {
  await Promise.all(everyProcess.map((worker) => worker.kill()));
  await store?.close();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function start(name: string): FleetProcess {
  const worker = FleetProcess.start(name, server.url);
  everyProcess.push(worker);
  return worker;
}

/** What a session's pins must be: acknowledged ones for sure, interrupted ones either way. */
type PinStatus = 'pinned' | 'maybe-pinned' | 'unpinned' | 'maybe-unpinned';

interface ServedSession {
  session: string;
  record: number;
  /** Index (in the conversation's turns) of the last turn served. */
  lastTurn: number;
  pins: Map<string, PinStatus>;
  /** An undo whose process died before it answered: it may have written the summary back and not taken its epoch. */
  undoInterrupted?: boolean;
}

// A run of its own processes: in `npm run test:conformance` (and CI), not in `npm test`, which it would take past its
// time.
const inConformanceRun = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';

(inConformanceRun ? it : it.skip)(
  `soak: ${size.processes} processes × ${size.sessions} sessions for ${size.seconds} s on one redis-server, with ` +
    `kill -9 of random processes: every payload valid, no update lost or applied twice`,
  async () => {
    const records = tauBench();
    for (let index = 0; index < size.processes; index++) slots.push(start(`p${index}`));
    const reference = start('in-order');
    await Promise.all(everyProcess.map((worker) => worker.ready));

    const latencies: number[] = [];
    /** Without the first compose of each process (started or restarted), which also loads the tokenizer. */
    const warmLatencies: number[] = [];
    const problems: string[] = [];
    const served: ServedSession[] = [];
    const counts = {
      turns: 0,
      lateReports: 0,
      pins: 0,
      unpins: 0,
      undos: 0,
      kills: 0,
      resent: 0,
      undoInterrupted: 0,
      storeFailures: 0,
    };

    /** Sends `request` to a random live process; one that dies first is replaced by another, unless `once`. */
    const ask = async (request: FleetAsk, once = false): Promise<FleetResult | undefined> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const worker = pick(slots);
        try {
          await worker.ready;
          return await worker.ask(request);
        } catch (error) {
          // A store call that timed out on a loaded machine fails the request; a client sends it again.
          const storeFailure = error instanceof Error && /: StoreError: /.test(error.message);
          if (!(error instanceof WorkerGoneError) && !storeFailure) throw error;
          if (storeFailure) counts.storeFailures++;
          counts.resent++;
          if (once) return undefined;
          await sleep(20);
        }
      }
      throw new Error(`no process answered ${request.type} after 20 attempts`);
    };

    const started = Date.now();
    const deadline = started + size.seconds * 1000;
    // Past its time (by a minute at most) the run goes on until an undo and a pin have been exercised: a loaded
    // machine serves fewer turns in the same time.
    const finished = () =>
      Date.now() >= deadline && ((counts.undos > 0 && counts.pins > 0) || Date.now() >= deadline + 60_000);
    let stopKilling = false;
    let wakeKiller = () => {};
    const killerStopped = new Promise<void>((resolve) => (wakeKiller = resolve));
    let restarts = 0;
    const killer = (async () => {
      while (!stopKilling) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          killerStopped,
          new Promise((resolve) => (timer = setTimeout(resolve, size.killEveryMs * (0.5 + Math.random())))),
        ]);
        clearTimeout(timer);
        if (stopKilling) break;
        const slot = Math.floor(Math.random() * slots.length);
        const victim = slots[slot]!;
        slots[slot] = start(`p${slot}-${++restarts}`);
        await victim.kill();
        counts.kills++;
      }
    })();

    let nextSession = 0;
    const serveSessions = async () => {
      while (!finished()) {
        const number = nextSession++;
        const record = number % records.length;
        const session = `soak-${number}`;
        const cuts = turnCuts(records[record]!.history);
        const state: ServedSession = { session, record, lastTurn: -1, pins: new Map() };
        const report = (turn: number) => ask({ type: 'report', session, record, messages: cuts[turn]!.report });
        let held: number | undefined;
        for (let turn = 0; turn < cuts.length && !finished(); turn++) {
          const handleTurn = async () => {
            const composed = await ask({ type: 'compose', session, record, messages: cuts[turn]!.request });
            latencies.push(...(composed?.latencies ?? []));
            if (composed && !composed.cold) warmLatencies.push(...(composed.latencies ?? []));
            problems.push(...(composed?.problems ?? []));
            // Some turn reports are held back, and sent while the next turn is handled by another process.
            if (held === undefined && turn < cuts.length - 1 && Math.random() < 0.25) return turn;
            await report(turn);
            return undefined;
          };
          // Pins and unpins run while the turn is handled, in other processes; undos between turns.
          const action = Math.random();
          const sideAction = async () => {
            if (action < 0.1) {
              // Two pins at once, in two processes. Sent again after a kill: pinning what is pinned returns the pin, it
              // adds none.
              await Promise.all(
                ['a', 'b'].map(async (suffix) => {
                  const label = `${session}-pin-${turn}${suffix}`;
                  state.pins.set(label, 'maybe-pinned');
                  await ask({ type: 'pin', session, label });
                  state.pins.set(label, 'pinned');
                  counts.pins++;
                }),
              );
            } else if (action < 0.15) {
              const label = [...state.pins].find(([, status]) => status === 'pinned')?.[0];
              if (label !== undefined) {
                state.pins.set(label, 'maybe-unpinned');
                await ask({ type: 'unpin', session, label });
                state.pins.set(label, 'unpinned');
                counts.unpins++;
              }
            }
          };
          const late = held;
          held = undefined;
          const [heldNow] = await Promise.all([
            handleTurn(),
            late === undefined ? undefined : report(late),
            sideAction(),
          ]);
          if (late !== undefined) counts.lateReports++;
          held = heldNow;
          state.lastTurn = turn;
          counts.turns++;
          if (action >= 0.15 && action < 0.2) {
            // Never sent twice: a second undo would undo another fold.
            const undone = await ask({ type: 'undo', session }, true);
            if (undone === undefined) {
              counts.undoInterrupted++;
              state.undoInterrupted = true;
            } else if (undone.undone) counts.undos++;
          }
        }
        if (held !== undefined) await report(held);
        // The last report once more: a report repeated changes nothing.
        if (state.lastTurn >= 0) await report(state.lastTurn);
        served.push(state);
      }
    };
    await Promise.all(Array.from({ length: size.sessions }, () => serveSessions()));
    const elapsed = (Date.now() - started) / 1000;
    stopKilling = true;
    wakeKiller();
    await killer;
    await Promise.all(slots.map((worker) => worker.ready));

    // One process serving each conversation in order, as far as the soak served it.
    const inOrder = new Map<string, Record<string, unknown>>();
    const wanted = [
      ...new Set(served.filter((entry) => entry.lastTurn >= 0).map((entry) => `${entry.record}-${entry.lastTurn}`)),
    ];
    for (let at = 0; at < wanted.length; at += 8) {
      await Promise.all(
        wanted.slice(at, at + 8).map(async (key) => {
          const [record, lastTurn] = key.split('-').map(Number) as [number, number];
          const session = `in-order-${key}`;
          const cuts = turnCuts(records[record]!.history);
          for (let turn = 0; turn <= lastTurn; turn++) {
            await reference.ask({ type: 'compose', session, record, messages: cuts[turn]!.request });
            await reference.ask({ type: 'report', session, record, messages: cuts[turn]!.report });
          }
          inOrder.set(key, (await entitiesOf(session))?.state ?? {});
        }),
      );
    }

    const failures: string[] = [];
    let folds = 0;
    for (const entry of served) {
      if (entry.lastTurn < 0) continue;
      const { session } = entry;
      const reported = turnCuts(records[entry.record]!.history)[entry.lastTurn]!.report;
      const inspected = (await ask({ type: 'inspect', session }))!;
      // No message folded twice: the recorded folds, in the order of their messages, follow each other.
      // (A process killed between a fold's commit and its epoch leaves that fold unrecorded: a gap, never
      // an overlap. Two processes may record the epochs of two folds in turn in either order.)
      let end = 0;
      const byStart = [...inspected.folds!].sort((x, y) => Number(x.split('-')[0]) - Number(y.split('-')[0]));
      for (const range of byStart) {
        const [from, to] = range.split('-').map(Number) as [number, number];
        if (from < end || to <= from)
          failures.push(`${session}: fold ${range} overlaps the folds before it (${inspected.folds!.join(' ')})`);
        end = to;
      }
      folds += inspected.folds!.length;
      const summary = await summaryOf(session);
      const covered = summary?.coveredMessages ?? 0;
      // An undo writes the summary from before its fold back, then takes the fold's epoch: one whose
      // process died in between leaves the summary ending where that recorded fold starts.
      const undoneHalfway =
        entry.undoInterrupted === true && byStart.some((range) => Number(range.split('-')[0]) === covered);
      if (covered < end && !undoneHalfway)
        failures.push(
          `${session}: the summary covers ${covered} messages, less than the folds recorded (${end}): a fold was lost`,
        );
      if (covered > reported)
        failures.push(`${session}: the summary covers ${covered} messages, more than were ever reported (${reported})`);

      const entities = await entitiesOf(session);
      for (const problem of chainProblems(entities)) failures.push(`${session}: ${problem}`);
      const expected = inOrder.get(`${entry.record}-${entry.lastTurn}`) ?? {};
      if (JSON.stringify(sorted(entities?.state ?? {})) !== JSON.stringify(sorted(expected))) {
        failures.push(
          `${session}: the entity state ${JSON.stringify(entities?.state)} is not the in-order ` +
            `one ${JSON.stringify(expected)}`,
        );
      }

      const labels = inspected.pins!;
      if (new Set(labels).size !== labels.length)
        failures.push(`${session}: a pin is there twice (${labels.join(', ')})`);
      for (const [label, status] of entry.pins) {
        if (status === 'pinned' && !labels.includes(label))
          failures.push(`${session}: acknowledged pin ${label} is missing`);
        if (status === 'unpinned' && labels.includes(label))
          failures.push(`${session}: acknowledged unpin of ${label} did not hold`);
      }
      for (const label of labels)
        if (!entry.pins.has(label)) failures.push(`${session}: pin ${label} was never asked for`);
    }

    const stopped = await Promise.all([...slots, reference].map((worker) => worker.ask({ type: 'stop' })));
    const errors = stopped.flatMap((result) => result.errors ?? []);
    const resyncs = stopped.reduce((sum, result) => sum + (result.counts?.['summary-resync'] ?? 0), 0);

    const figures = {
      processes: size.processes,
      concurrentSessions: size.sessions,
      seconds: Math.round(elapsed),
      sessionsServed: served.length,
      composeCalls: latencies.length,
      turnsPerSecond: Math.round((counts.turns / elapsed) * 10) / 10,
      composeCallsPerSecond: Math.round((latencies.length / elapsed) * 10) / 10,
      composeP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      composeP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      warmComposeP50Ms: Math.round(percentile(warmLatencies, 50) * 10) / 10,
      warmComposeP99Ms: Math.round(percentile(warmLatencies, 99) * 10) / 10,
      ...counts,
      folds,
      lostUpdates: failures.length,
    };
    console.log(`Redis soak figures: ${JSON.stringify(figures)}`);
    if (process.env.CTXKIT_SOAK_REPORT)
      fs.writeFileSync(process.env.CTXKIT_SOAK_REPORT, `${JSON.stringify(figures, null, 2)}\n`);

    expect(failures.slice(0, 20)).toEqual([]);
    expect(problems.slice(0, 20)).toEqual([]);
    expect(errors.slice(0, 20)).toEqual([]);
    expect(resyncs).toBe(0);
    // The soak did what it is about.
    expect(counts.kills).toBeGreaterThan(0);
    expect(counts.resent).toBeGreaterThan(0);
    expect(counts.lateReports).toBeGreaterThan(0);
    expect(folds).toBeGreaterThan(0);
    expect(counts.pins).toBeGreaterThan(0);
    expect(counts.undos).toBeGreaterThan(0);
  },
  size.seconds * 1000 + 180_000,
);

async function summaryOf(session: string): Promise<SummaryView | null> {
  const record = (await store.get({
    agentId: SUMMARIZER_AGENT.id,
    sessionId: session,
    kind: 'summary',
    name: 'buffer',
  })) as { summary: SummaryView | null } | undefined;
  return record?.summary ?? null;
}

async function entitiesOf(session: string): Promise<EntityView | undefined> {
  return (await store.get({ agentId: EXTRACTOR_AGENT.id, sessionId: session, kind: 'entities', name: 'state' })) as
    EntityView | undefined;
}

function sorted(state: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(state).sort(([a], [b]) => a.localeCompare(b)));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Where the versions, replayed from an empty state, do not chain: numbered 1, 2, 3…, each change from the value before
 * it, ending at the state.
 */
function chainProblems(entities: EntityView | undefined): string[] {
  if (!entities) return [];
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
