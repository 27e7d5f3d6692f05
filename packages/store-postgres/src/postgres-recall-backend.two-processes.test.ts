import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { type PostgresServerProcess, startPostgresServer } from './__tests__/postgres-server';
import { type RecallLogWorkerMessage, SHARED_SCOPE, workerRecordIds } from './__tests__/recall-log-script';
import { PostgresContextStore } from './postgres-context-store';

/**
 * Two real Node processes append to one resource-scoped recall log at once and read it as they go:
 * each must read every record both wrote, each exactly once, in the log's order, and a call's records
 * together. The workers run the built JavaScript (`dist/__tests__/recall-log-worker.js`): build with
 * `npx tsc -b` first.
 */

const WORKER = path.join(__dirname, '..', 'dist', '__tests__', 'recall-log-worker.js');
const APPENDS = 60;
const TABLE_PREFIX = 'two_processes';

let server: PostgresServerProcess;

beforeAll(async () => {
  server = await startPostgresServer();
});

afterAll(async () => {
  await server?.stop();
});

/** A worker process: `ready` resolves once it waits for the start, `result` with what it reports. */
interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<RecallLogWorkerMessage>;
}

function startWorker(name: string): Worker {
  const child = fork(WORKER, [server.url, TABLE_PREFIX, name, String(APPENDS)], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (data: Buffer) => (output += data.toString('utf8')));
  child.stderr?.on('data', (data: Buffer) => (output += data.toString('utf8')));
  let readyResolve: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  const result = new Promise<RecallLogWorkerMessage>((resolve, reject) => {
    child.on('message', (message: RecallLogWorkerMessage) => {
      if (message.type === 'ready') readyResolve();
      else resolve(message);
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code} before reporting: ${output}`)));
  });
  return { child, ready, result };
}

describe('PostgresRecallBackend across two processes', () => {
  it('lets two processes append to one log at once, each reading every record once, in order', async () => {
    if (!existsSync(WORKER)) {
      throw new Error(`${WORKER} is missing: build first (npx tsc -b), then run the tests again.`);
    }
    const workers = { first: startWorker('first'), second: startWorker('second') };
    try {
      await Promise.all(Object.values(workers).map((worker) => worker.ready));
      for (const worker of Object.values(workers)) worker.child.send({ type: 'start' });
      const reports = await Promise.all(Object.values(workers).map((worker) => worker.result));

      const store = new PostgresContextStore({ connectionString: server.url, tablePrefix: TABLE_PREFIX });
      const log = (await store.recallBackend().read(SHARED_SCOPE)).records.map((record) => record.id);
      await store.close();
      const expected = new Set([...workerRecordIds('first', APPENDS), ...workerRecordIds('second', APPENDS)]);
      // Shared records were appended by both processes and are stored once.
      expect(log).toHaveLength(expected.size);
      expect(new Set(log)).toEqual(expected);

      for (const report of reports) {
        if (report.type !== 'done') throw new Error(report.type === 'failed' ? report.error : 'unexpected report');
        const read = report.reads.flat();
        // Nothing lost, nothing read twice, and the order is the log's: no cursor skipped a record
        // that committed after a later one.
        expect(read).toEqual(log);
        // Each call's records arrived together.
        for (const pair of [...report.pairs]) {
          expect(report.reads.some((batch) => batch.includes(pair[0]) && batch.includes(pair[1]))).toBe(true);
        }
      }
    } finally {
      for (const worker of Object.values(workers)) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  });
});
