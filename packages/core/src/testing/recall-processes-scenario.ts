import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ChatMessage } from '../contracts/chat-message';
import type { IContextStore } from '../contracts/context-store';
import type { RecallEntry, RecallScopeKey } from '../contracts/recall-backend';
import type { RecallStats } from '../recall/recall-layer';
import { recallBackendFor } from '../recall/store-recall-backend';
import type { RecallWorkerReply, RecallWorkerRequest } from './recall-processes-worker';

/** What {@link RecallProcessesScenarioOptions.start} started: the store's options, and how to stop it. */
export interface RecallProcessesServer<Options> {
  /** The options every process builds the store with (the workers get them as JSON). */
  storeOptions: Options;
  /** Stops what `start` started, after the workers and the test's store are closed. */
  stop?(): Promise<void>;
}

/** Options of {@link runRecallProcessesScenario}. */
export interface RecallProcessesScenarioOptions<Options> {
  /**
   * Absolute path of the store's module for the worker processes: a CommonJS file exporting
   * `createStore(options)` that builds the store from its package's built code (`dist`), e.g.
   * `exports.createStore = (options) => new RedisContextStore(options)`.
   */
  storeModule: string;
  /** Starts what the store needs (a server) once, before the workers; the scenario stops it at the end. */
  start: () => Promise<RecallProcessesServer<Options>>;
  /** Opens the store in the test's own process, the one the resource logs are read through. Closed at the end. */
  openStore: (options: Options) => IContextStore | Promise<IContextStore>;
  /**
   * Whether the store has a recall backend of its own (`recallBackend()`, e.g. PostgreSQL's rows)
   * that the logs must be read through, rather than the generic one over its blobs.
   * @default false
   */
  ownRecallBackend?: boolean;
}

/** The generic worker, built: `dist/testing` of this package (from `src/testing` or `dist/testing` alike). */
const WORKER = path.join(__dirname, '..', '..', 'dist', 'testing', 'recall-processes-worker.js');
/** Turns per session: enough that the oldest ones are out of the 2,000-token window. */
const TURNS = 45;
const BASE = Date.UTC(2023, 4, 8, 13, 56);
const MINUTE = 60_000;

const TOPICS = [
  'the vegetable garden',
  'a lentil soup recipe',
  'the train timetable',
  'our holiday photos',
  'the quarterly budget',
  'a chess opening',
  'the roof repair',
  'a Tolstoy novel',
  'the piano lesson',
  'the marathon training plan',
];

function fillerTurn(part: number): ChatMessage[] {
  const topic = TOPICS[part % TOPICS.length]!;
  return [
    {
      role: 'user',
      content: `Could you give me a short overview of ${topic}, part ${part}? Three points would be enough.`,
    },
    {
      role: 'assistant',
      content:
        `Here is part ${part} about ${topic}: first, start with the basics; second, plan the steps ahead; ` +
        `third, review the results afterwards.`,
    },
  ];
}

/** The turns each session holds besides its fillers, by turn number. */
const FACTS: Record<string, { turn: number; messages: ChatMessage[] }> = {
  'a-1': {
    turn: 3,
    messages: [
      { role: 'user', content: 'By the way, my locker code at the swimming pool is 4417.' },
      { role: 'assistant', content: 'Noted: your swimming-pool locker code is 4417.' },
    ],
  },
  'b-1': {
    turn: 5,
    messages: [
      { role: 'user', content: 'My bicycle frame number is KX-9083, please remember it.' },
      { role: 'assistant', content: 'Got it: bicycle frame number KX-9083.' },
    ],
  },
  'c-1': {
    turn: 2,
    messages: [
      { role: 'user', content: 'At the sports centre pool my locker code is 5150.' },
      { role: 'assistant', content: 'Noted: locker code 5150.' },
    ],
  },
};
const FILLER_OFFSET: Record<string, number> = { 'a-1': 0, 'b-1': 100, 'c-1': 200 };

/** The first `turns` turns of a session. */
function history(sessionId: string, turns: number): ChatMessage[] {
  const fact = FACTS[sessionId]!;
  return Array.from({ length: turns }, (_, turn) =>
    turn === fact.turn ? fact.messages : fillerTurn(turn + FILLER_OFFSET[sessionId]!),
  ).flat();
}

/** Where a session's fact starts in its history (its user message). */
const factFrom = (sessionId: string) => FACTS[sessionId]!.turn * 2;

/** One worker process and the replies it owes. */
class Worker {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (reply: { text?: string; recall?: RecallStats }) => void; reject: (error: Error) => void }
  >();
  private output = '';
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    storeModule: string,
    storeOptions: unknown,
  ) {
    this.child = fork(WORKER, [storeModule, JSON.stringify(storeOptions)], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child.stdout?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    this.child.stderr?.on('data', (data: Buffer) => (this.output += data.toString('utf8')));
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (message: RecallWorkerReply) => {
        if (message.type === 'ready') return resolve();
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (message.type === 'failed') waiter?.reject(new Error(`worker ${name}: ${message.error}`));
        else waiter?.resolve(message);
      });
      this.child.once('exit', (code) => {
        const error = new Error(`worker ${name} exited with ${code}: ${this.output}`);
        reject(error);
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      });
    });
    this.ready.catch(() => undefined);
  }

  request(request: RecallWorkerRequest): Promise<{ text?: string; recall?: RecallStats }> {
    const id = this.nextId++;
    const reply = new Promise<{ text?: string; recall?: RecallStats }>((resolve, reject) =>
      this.waiting.set(id, { resolve, reject }),
    );
    this.child.send({ ...request, id });
    return reply;
  }

  /** Completes turn `turn` (0-based) of `sessionId` at `at`. */
  async turn(sessionId: string, resourceId: string, turn: number, at: number): Promise<void> {
    await this.request({ type: 'turn', sessionId, resourceId, history: history(sessionId, turn + 1), at });
  }

  /** Composes the session's whole history plus `question`: the payload's text and recall stats. */
  async ask(
    sessionId: string,
    resourceId: string,
    question: string,
    at: number,
  ): Promise<{ text: string; recall: RecallStats }> {
    const reply = await this.request({
      type: 'ask',
      sessionId,
      resourceId,
      history: [...history(sessionId, TURNS), { role: 'user', content: question }],
      at,
    });
    return { text: reply.text!, recall: reply.recall! };
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

const scopeOf = (resourceId: string): RecallScopeKey => ({ agentId: 'assistant', scope: 'resource', id: resourceId });

/** The log's entries, the first of each id kept (as readers do). */
function uniqueEntries(records: ReadonlyArray<{ type: string; id: string }>): RecallEntry[] {
  const byId = new Map<string, RecallEntry>();
  for (const record of records)
    if (record.type === 'entry' && !byId.has(record.id)) byId.set(record.id, record as RecallEntry);
  return [...byId.values()];
}

/**
 * Recall shared by processes, over a store: two real Node processes serve two sessions of one
 * resource (`user-42`) with `std-recall-strategy` (`recall.scope: "resource"`) over one store,
 * completing their turns at the same time. Each recalls what the other indexed, labelled with the
 * other session; the resource's log holds every turn of both, once, and nothing was reset; a session
 * of another resource (`user-7`) recalls none of it, and its log holds only its own turns.
 *
 * The workers run built code (`dist/testing/recall-processes-worker.js` of this package, the store
 * module, the `std-recall-strategy` plugin, which must be installed): build first (`npx tsc -b` in
 * this repository), or the scenario fails saying so. Uses jest's global `describe`/`it`; call it at
 * the top level of a test file (or in a `describe`).
 *
 * @param name shown in the suite title, e.g. `'RedisContextStore'`.
 * @example
 * runRecallProcessesScenario('RedisContextStore', {
 *   storeModule: path.join(__dirname, '__tests__', 'recall-store.js'),
 *   start: async () => {
 *     const server = await startRedisServer();
 *     return { storeOptions: { url: server.url }, stop: () => server.stop() };
 *   },
 *   openStore: (options) => new RedisContextStore(options),
 * });
 */
export function runRecallProcessesScenario<Options>(
  name: string,
  options: RecallProcessesScenarioOptions<Options>,
): void {
  describe(name, () =>
    describe('recall shared by two processes (std-recall-strategy, scope "resource")', () => {
      let server: RecallProcessesServer<Options> | undefined;
      let store: IContextStore | undefined;
      let a: Worker;
      let b: Worker;
      const end = BASE + TURNS * 2 * MINUTE;
      const read = async (resourceId: string) => (await recallBackendFor(store!).read(scopeOf(resourceId))).records;

      beforeAll(async () => {
        if (!fs.existsSync(WORKER))
          throw new Error(`${WORKER} is missing: run npx tsc -b first, then the tests again.`);
        server = await options.start();
        store = await options.openStore(server.storeOptions);
        a = new Worker('A', options.storeModule, server.storeOptions);
        b = new Worker('B', options.storeModule, server.storeOptions);
        await Promise.all([a.ready, b.ready]);
        // Interleaved: process A completes turn n of a-1 while process B completes turn n of b-1.
        for (let turn = 0; turn < TURNS; turn++) {
          await Promise.all([
            a.turn('a-1', 'user-42', turn, BASE + turn * 2 * MINUTE),
            b.turn('b-1', 'user-42', turn, BASE + (turn * 2 + 1) * MINUTE),
          ]);
        }
      }, 60_000);

      afterAll(async () => {
        await Promise.all([a, b].map((worker) => worker?.request({ type: 'stop' }).catch(() => undefined)));
        for (const worker of [a, b]) worker?.kill();
        await store?.close?.();
        await server?.stop?.();
      });

      it('recalls in each process the turn the other process indexed, labelled with the other session', async () => {
        const inB = await b.ask('b-1', 'user-42', 'What was my locker code at the swimming pool?', end);
        expect(inB.text).toContain('<recalled-turns>');
        expect(inB.text).toContain('user: By the way, my locker code at the swimming pool is 4417.');
        expect(inB.text).toMatch(/\[8 May 2023 \d\d:\d\d UTC · session "a-1" · #\d+(–\d+)?\]/);
        expect(inB.recall.scope).toBe('resource');
        expect(inB.recall.hits).toContainEqual(
          expect.objectContaining({
            sessionId: 'a-1',
            from: factFrom('a-1'),
            to: factFrom('a-1') + 1,
            at: BASE + 3 * 2 * MINUTE,
          }),
        );

        const inA = await a.ask('a-1', 'user-42', 'Which frame number does my bicycle have?', end);
        expect(inA.text).toContain('user: My bicycle frame number is KX-9083, please remember it.');
        expect(inA.text).toContain('session "b-1"');
        expect(inA.recall.hits).toContainEqual(
          expect.objectContaining({
            sessionId: 'b-1',
            from: factFrom('b-1'),
            to: factFrom('b-1') + 1,
            at: BASE + (5 * 2 + 1) * MINUTE,
          }),
        );
      });

      it('keeps every turn of both sessions in the resource log, each entry once, none lost', async () => {
        if (options.ownRecallBackend) {
          // The store's own backend (e.g. rows of PostgreSQL's <prefix>_recall), not JSON lines in a blob.
          expect(typeof store!.recallBackend).toBe('function');
          expect(recallBackendFor(store!).name).toBe(store!.recallBackend!().name);
        }
        const records = await read('user-42');
        const entries = uniqueEntries(records);
        const positions = entries.map((entry) => `${entry.sessionId}#${entry.from}`).sort();
        const expected = ['a-1', 'b-1']
          .flatMap((sessionId) => Array.from({ length: TURNS * 2 }, (_, from) => `${sessionId}#${from}`))
          .sort();
        // One entry per message of each session (no id for a position twice), and every message has one.
        expect(positions).toEqual(expected);
        // Each session was indexed by its own process only: no entry was appended twice, nothing reset.
        expect(records.filter((record) => record.type === 'entry')).toHaveLength(entries.length);
        expect(records.filter((record) => record.type === 'reset')).toEqual([]);
        for (const entry of entries) {
          const message = history(entry.sessionId, TURNS)[entry.from]!;
          expect(entry.text).toBe(`${message.role}: ${message.content as string}`);
        }
      });

      it("recalls nothing of user-42's turns in a session of another resource", async () => {
        for (let turn = 0; turn < TURNS; turn++) await b.turn('c-1', 'user-7', turn, end + turn * MINUTE);
        const other = await b.ask(
          'c-1',
          'user-7',
          'What was my locker code at the swimming pool?',
          end + TURNS * MINUTE,
        );
        expect(other.text).not.toContain('4417');
        expect(other.text).not.toContain('session "a-1"');
        // Its own resource's turn is recalled (recall works there), and only that resource's.
        expect(other.text).toContain('user: At the sports centre pool my locker code is 5150.');
        expect(other.recall.hits.length).toBeGreaterThan(0);
        expect(other.recall.hits.filter((hit) => hit.sessionId !== 'c-1')).toEqual([]);

        const logs = { 'user-42': uniqueEntries(await read('user-42')), 'user-7': uniqueEntries(await read('user-7')) };
        expect(new Set(logs['user-7'].map((entry) => entry.sessionId))).toEqual(new Set(['c-1']));
        expect(logs['user-7']).toHaveLength(TURNS * 2);
        expect(logs['user-42'].filter((entry) => entry.sessionId === 'c-1')).toEqual([]);
      });
    }),
  );
}
