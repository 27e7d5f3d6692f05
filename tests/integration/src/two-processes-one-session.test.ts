import 'reflect-metadata';

import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';
import {
  EXTRACTOR_AGENT,
  type ModelCall,
  modelCallsKey,
  reservationCode,
  SUMMARIZER_AGENT,
  TURNS,
  type WorkerAsk,
  type WorkerEvents,
  type WorkerReply,
  type WorkerRequest,
} from './two-processes/session-script';

/**
 * Two real Node processes serve one session over one redis-server: the summarizing and the extracting
 * agent in each, turns alternating between the processes (a fold in one overlaps the next turn in the
 * other), then overlapping (both complete the same turn at once, or a turn and the next one). Every
 * model call is recorded in Redis by the process that makes it. Checked: no turn is folded twice, the
 * summary keeps every turn it folded, no entity update is lost and none is versioned twice.
 *
 * The workers run the built JavaScript (`dist/two-processes/session-worker.js`) and the plugins' dist:
 * build with `npx tsc -b` first.
 */

const WORKER = path.join(__dirname, '..', 'dist', 'two-processes', 'session-worker.js');
const SESSION_ID = 'shared-conversation';

/** A worker process and the replies it owes. */
class Worker {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }
  >();
  private output = '';
  readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    child.stderr?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    this.ready = new Promise((resolve, reject) => {
      child.on('message', (message: WorkerReply) => {
        if (message.type === 'ready') return resolve();
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (message.type === 'failed') waiter?.reject(new Error(`worker ${name}: ${message.error}`));
        else waiter?.resolve(message);
      });
      child.once('exit', (code) => {
        const error = new Error(`worker ${name} exited with ${code}: ${this.output}`);
        reject(error);
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      });
    });
  }

  static start(name: string, redisUrl: string): Worker {
    return new Worker(name, fork(WORKER, [redisUrl, name, SESSION_ID], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }));
  }

  async ask(request: WorkerAsk): Promise<WorkerEvents | undefined> {
    const id = this.nextId++;
    const reply = new Promise<WorkerReply>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const message: WorkerRequest = { ...request, id };
    this.child.send(message);
    const answer = await reply;
    return answer.type === 'done' ? answer.events : undefined;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

let server: RedisServerProcess;
let store: RedisContextStore;
let workers: Worker[] = [];

beforeAll(async () => {
  if (!fs.existsSync(WORKER)) throw new Error(`${WORKER} is missing: build with \`npx tsc -b\` before this test`);
  server = await startRedisServer();
  store = new RedisContextStore({ url: server.url });
});

afterAll(async () => {
  for (const worker of workers) worker.kill();
  await store?.close();
  await server?.stop();
});

async function modelCalls(): Promise<ModelCall[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.readBlob(modelCallsKey(SESSION_ID))) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ModelCall);
}

it(
  'two processes on one session: turns alternating, then overlapping; no summary or entity update lost, no turn ' +
    'folded twice',
  async () => {
    const [a, b] = (workers = [Worker.start('a', server.url), Worker.start('b', server.url)]) as [Worker, Worker];
    await Promise.all([a.ready, b.ready]);

    // Alternating: each turn on the other process, without waiting for the fold the previous one started.
    for (let turn = 1; turn <= 10; turn++) await (turn % 2 === 1 ? a : b).ask({ type: 'turn', turn });
    // Overlapping: both processes at once, on the same turn or on a turn and the next one.
    for (const [first, second] of [
      [11, 11],
      [12, 13],
      [14, 14],
      [15, 16],
      [17, 17],
      [18, 19],
      [20, 20],
    ] as const) {
      await Promise.all([a.ask({ type: 'turn', turn: first }), b.ask({ type: 'turn', turn: second })]);
    }
    await Promise.all([a.ask({ type: 'idle' }), b.ask({ type: 'idle' })]);
    const events = await Promise.all([a.ask({ type: 'stop' }), b.ask({ type: 'stop' })]);

    const calls = await modelCalls();
    const folds = calls.filter((call) => call.kind === 'summary');
    const folded = folds.flatMap((call) => call.turns).sort((x, y) => x - y);

    // No turn folded twice, and the folded turns are the oldest ones, in order.
    expect(new Set(folded).size).toBe(folded.length);
    expect(folded).toEqual(folded.map((_, index) => index + 1));
    // At least two folds, so that one folded onto the other's summary. (How many, and in which process,
    // depends on timing: at most one attempt per turn, and none while another process's fold runs.)
    expect(folded.length).toBeGreaterThanOrEqual(4);

    // No summary lost: every fold was committed, and the summary names every turn folded.
    const record = (await store.get({
      agentId: SUMMARIZER_AGENT.id,
      sessionId: SESSION_ID,
      kind: 'summary',
      name: 'buffer',
    })) as {
      summary: { version: number; text: string; coveredTurns: number };
      failures: { consecutiveFailures: number };
      fold: unknown;
    };
    expect(record.summary.version).toBe(folds.length);
    expect(record.summary.coveredTurns).toBe(folded.length);
    for (const turn of folded) expect(record.summary.text).toContain(reservationCode(turn));
    expect(record.failures.consecutiveFailures).toBe(0);
    expect(record.fold).toBeNull();

    // No entity update lost, none applied twice.
    const entities = (await store.get({
      agentId: EXTRACTOR_AGENT.id,
      sessionId: SESSION_ID,
      kind: 'entities',
      name: 'state',
    })) as {
      state: Record<string, string>;
      versions: Array<{ version: number; diff: Array<{ field: string }> }>;
      processedThrough: number;
    };
    const everyTurn = Array.from({ length: TURNS }, (_, index) => index + 1);
    expect(entities.state).toEqual(
      Object.fromEntries(everyTurn.map((turn) => [`turn_${turn}`, reservationCode(turn)])),
    );
    expect(entities.versions.flatMap((version) => version.diff.map((change) => change.field)).sort()).toEqual(
      everyTurn.map((turn) => `turn_${turn}`).sort(),
    );
    expect(entities.versions.map((version) => version.version)).toEqual(entities.versions.map((_, index) => index + 1));
    const extracted = new Set(calls.filter((call) => call.kind === 'extraction').flatMap((call) => call.turns));
    expect([...extracted].sort((x, y) => x - y)).toEqual(everyTurn);

    // Nothing failed or warned in either process.
    expect(events.flatMap((worker) => worker?.problems ?? [])).toEqual([]);
    const ended = events.reduce((sum, worker) => sum + (worker?.counts['summary-end'] ?? 0), 0);
    expect(ended).toBe(folds.length);
  },
  60_000,
);
