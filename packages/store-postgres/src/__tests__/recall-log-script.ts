/**
 * What `postgres-recall-backend.two-processes.test.ts` and its workers (`recall-log-worker.ts`) share:
 * the log, the ids each worker appends and the messages they exchange.
 */
import type { RecallScopeKey } from '@ctxkit/core';

/** What the parent sends: start appending (both workers get it at once). */
export interface RecallLogWorkerStart {
  type: 'start';
}

/** What a worker answers. */
export type RecallLogWorkerMessage =
  | { type: 'ready' }
  /** The record ids of each read, in the order read; `pairs` lists the ids each two-record call appended. */
  | { type: 'done'; reads: string[][]; pairs: Array<[string, string]> }
  | { type: 'failed'; error: string };

/** The log both workers share. */
export const SHARED_SCOPE: RecallScopeKey = { agentId: 'support-agent', scope: 'resource', id: 'customer-42' };

/** The ids worker `name` appends in a run of `appends` calls (its own and the shared ones). */
export function workerRecordIds(name: string, appends: number): string[] {
  const ids: string[] = [];
  for (let index = 0; index < appends; index++) {
    ids.push(`${name}:${index}`);
    if (index % 3 === 0) ids.push(`${name}:${index}+`);
    if (index % 4 === 0) ids.push(`shared:${index}`);
  }
  return ids;
}
