import type { IContextStore, StoreKey } from '../contracts/context-store';
import type { IRecallBackend, RecallReadResult, RecallRecord, RecallScopeKey } from '../contracts/recall-backend';

/** The blob name of a scope's log: a session's and a resource's never share a key. */
const LOG_NAMES = { session: 'session-recall-log', resource: 'resource-recall-log' } as const;

/**
 * The recall backend of a store without a search of its own (memory, file, Redis): each scope's
 * records are JSON lines appended to one blob (kind `recall`), and a reader reads from the byte
 * offset it reached (its cursor). Appends are whole lines in one `appendBlob` call, so a reader never
 * sees half a record; ranking is the recall layer's, in memory.
 */
export class StoreRecallBackend implements IRecallBackend {
  readonly name: string;

  constructor(private readonly store: IContextStore) {
    this.name = `${store.name} (recall log)`;
  }

  async append(scope: RecallScopeKey, records: ReadonlyArray<RecallRecord>): Promise<void> {
    if (records.length === 0) return;
    await this.store.appendBlob(logKey(scope), records.map(recordLine).join(''));
  }

  async read(scope: RecallScopeKey, cursor?: string): Promise<RecallReadResult> {
    const key = logKey(scope);
    const start = cursor === undefined ? 0 : Number(cursor);
    const size = await this.store.blobSize(key);
    if (size === undefined || size <= start) return { records: [], cursor: String(Math.min(start, size ?? 0)) };
    const parts: Buffer[] = [];
    for await (const chunk of this.store.readBlob(key, { start, end: size }))
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    const bytes = Buffer.concat(parts);
    // Only whole lines: a record being appended while this read ran is read next time.
    const end = bytes.lastIndexOf(0x0a) + 1;
    const records: RecallRecord[] = [];
    for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) {
      if (line.length === 0) continue;
      try {
        records.push(JSON.parse(line) as RecallRecord);
      } catch {
        // A line that is not JSON (a write torn by a crash) is skipped; the next records still count.
      }
    }
    return { records, cursor: String(start + end) };
  }
}

/** A record as a line of the log. */
function recordLine(record: RecallRecord): string {
  return `${JSON.stringify(record)}\n`;
}

function logKey(scope: RecallScopeKey): StoreKey {
  return { agentId: scope.agentId, sessionId: scope.id, kind: 'recall', name: LOG_NAMES[scope.scope] };
}

/** The recall backend of `store`: its own (`store.recallBackend()`), else JSON lines in its blobs. */
export function recallBackendFor(store: IContextStore): IRecallBackend {
  return store.recallBackend?.() ?? new StoreRecallBackend(store);
}
