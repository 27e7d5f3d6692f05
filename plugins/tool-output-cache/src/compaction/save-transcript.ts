import type { ChatMessage, IContextStore, StoreKey } from '@ctxkit/core';

/** Where a transcript was saved. */
export interface SavedTranscript {
  /** Store key (kind `transcript`). */
  key: StoreKey;
  /** `transcript:<name>`, the ref reported in events and reductions. */
  ref: string;
  messages: number;
  byteSize: number;
}

const FLUSH_BYTES = 1 << 20;

/**
 * Saves a full transcript as JSONL (one message a line) before a compaction,
 * through the store: kind `transcript`, name `transcript_<unix seconds>.jsonl` (`_2`, `_3`… when
 * that name is taken); a file store keeps it as `blobs/<agentId>/<sessionId>/transcript/<name>`.
 * Written in pieces of about 1 MiB. A failed write deletes what was written and rethrows.
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails
 */
export async function saveTranscript(
  store: IContextStore,
  owner: { agentId: string; sessionId: string },
  messages: ReadonlyArray<ChatMessage>,
  nowMs: number,
): Promise<SavedTranscript> {
  const stamp = Math.floor(nowMs / 1000);
  let key: StoreKey = {
    agentId: owner.agentId,
    sessionId: owner.sessionId,
    kind: 'transcript',
    name: `transcript_${stamp}.jsonl`,
  };
  for (let suffix = 2; (await store.blobSize(key)) !== undefined; suffix++)
    key = { ...key, name: `transcript_${stamp}_${suffix}.jsonl` };
  let byteSize = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  let first = true;
  const flush = async (): Promise<void> => {
    const data = pending.join('');
    pending = [];
    pendingLength = 0;
    byteSize = first ? (await store.putBlob(key, data)).byteSize : (await store.appendBlob(key, data)).byteSize;
    first = false;
  };
  try {
    for (const message of messages) {
      const line = JSON.stringify(message) + '\n';
      pending.push(line);
      pendingLength += line.length;
      if (pendingLength >= FLUSH_BYTES) await flush();
    }
    if (pendingLength > 0 || first) await flush();
  } catch (error) {
    await store.deleteBlob(key).catch(() => false);
    throw error;
  }
  return { key, ref: `transcript:${key.name}`, messages: messages.length, byteSize };
}
