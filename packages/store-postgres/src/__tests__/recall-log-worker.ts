/**
 * One of the two processes of `postgres-recall-backend.two-processes.test.ts`: appends its own
 * records (single ones, pairs in one call, and records the other process appends too) to one
 * resource-scoped recall log while reading the log from its cursor, then reads on until it has seen
 * every record both processes wrote, and reports each read. Run as the built JavaScript:
 * `node dist/__tests__/recall-log-worker.js <url> <tablePrefix> <name> <appends>` with an IPC channel.
 */
import type { RecallEntry } from '@ctxkit/core';

import { PostgresContextStore } from '../postgres-context-store';
import { type RecallLogWorkerMessage, SHARED_SCOPE, workerRecordIds } from './recall-log-script';

function entry(id: string, sessionId: string, from: number): RecallEntry {
  const text = `user: message ${id}`;
  return { type: 'entry', id, sessionId, from, to: from + 1, at: Date.now(), text, fingerprint: id };
}

async function main(): Promise<void> {
  const [url, tablePrefix, name, appendsText] = process.argv.slice(2);
  const appends = Number(appendsText);
  if (!url || !tablePrefix || !name || !(appends > 0)) {
    throw new Error('usage: recall-log-worker.js <url> <tablePrefix> <name> <appends>');
  }
  const store = new PostgresContextStore({ connectionString: url, tablePrefix });
  const backend = store.recallBackend();
  const reads: string[][] = [];
  const pairs: Array<[string, string]> = [];
  let cursor: string | undefined;
  const readNew = async () => {
    const result = await backend.read(SHARED_SCOPE, cursor);
    cursor = result.cursor;
    if (result.records.length > 0) reads.push(result.records.map((record) => record.id));
  };
  try {
    await new Promise<void>((resolve) => {
      process.once('message', () => resolve());
      process.send?.({ type: 'ready' } satisfies RecallLogWorkerMessage);
    });
    for (let index = 0; index < appends; index++) {
      if (index % 3 === 0) {
        const pair: [string, string] = [`${name}:${index}`, `${name}:${index}+`];
        pairs.push(pair);
        await backend.append(SHARED_SCOPE, [entry(pair[0], name, 2 * index), entry(pair[1], name, 2 * index + 1)]);
      } else {
        await backend.append(SHARED_SCOPE, [entry(`${name}:${index}`, name, 2 * index)]);
      }
      // The same turn indexed by both processes: same id, same content.
      if (index % 4 === 0) await backend.append(SHARED_SCOPE, [entry(`shared:${index}`, 'shared', index)]);
      await readNew();
    }
    const expected = new Set([...workerRecordIds('first', appends), ...workerRecordIds('second', appends)]);
    const deadline = Date.now() + 15_000;
    while (reads.flat().length < expected.size && Date.now() < deadline) {
      await readNew();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    process.send?.({ type: 'done', reads, pairs } satisfies RecallLogWorkerMessage);
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.send?.({ type: 'failed', error: text } satisfies RecallLogWorkerMessage);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
