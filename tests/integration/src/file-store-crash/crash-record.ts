import { createHash } from 'node:crypto';

import type { StoreKey } from '@ctxkit/core';

/** What the file store crash test and its writer process share: the keys written, the records, the acknowledgements. */

export const VALUE_KEY: StoreKey = { agentId: 'crash-test', sessionId: 'session', kind: 'state', name: 'record' };
export const BLOB_KEY: StoreKey = { agentId: 'crash-test', sessionId: 'session', kind: 'transcript', name: 'history' };

/** A written value: its counter, its body and the body's digest. */
export interface WrittenValue {
  n: number;
  body: string;
  digest: string;
}

/** What the writer tells its parent: a write that resolved. */
export interface WriterAck {
  kind: 'value' | 'blob';
  n: number;
}

export const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A blob: its counter on the first line, the body's digest on the second, then the body. */
export function blobText(n: number, body: string): string {
  return `${n}\n${digestOf(body)}\n${body}`;
}
