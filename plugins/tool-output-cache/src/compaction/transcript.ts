import { type ChatMessage, CtxkitError, ErrorCodes, type IContextStore, type StoreKey } from '@ctxkit/core';

import { streamLines } from '../cache/stream-lines';

/** The transcript saved before a compaction cannot be read, so the compaction cannot be undone. */
export class TranscriptMissingError extends CtxkitError {
  constructor(transcriptRef: string, problem: string) {
    super({
      code: ErrorCodes.STORE_ERROR,
      category: 'internal',
      message: `The transcript ${transcriptRef} saved before the compaction cannot be read: ${problem}.`,
      fix:
        'Keep the session\'s transcripts (store kind "transcript") for as long as its compactions may be undone; ' +
        'the epoch is still in the log, so the undo can be tried again once the transcript is back.',
      details: { transcriptRef, problem },
    });
  }
}

type TranscriptOwner = { agentId: string; sessionId: string };

const REF_PREFIX = 'transcript:';
const FLUSH_BYTES = 1 << 20;

function transcriptKey(owner: TranscriptOwner, name: string): StoreKey {
  return { agentId: owner.agentId, sessionId: owner.sessionId, kind: 'transcript', name };
}

/**
 * Saves a transcript as JSONL in the store (kind `transcript`, name `transcript_<unix seconds>[_2…].jsonl`) and returns
 * its ref, `transcript:<name>`. A failed write deletes what was written.
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails
 */
export async function saveTranscript(
  store: IContextStore,
  owner: TranscriptOwner,
  messages: ReadonlyArray<ChatMessage>,
  nowMs: number,
): Promise<string> {
  const stamp = Math.floor(nowMs / 1000);
  let key = transcriptKey(owner, `transcript_${stamp}.jsonl`);
  for (let suffix = 2; (await store.blobSize(key)) !== undefined; suffix++)
    key = { ...key, name: `transcript_${stamp}_${suffix}.jsonl` };
  let pending = '';
  let first = true;
  const flush = async (): Promise<void> => {
    const data = pending;
    pending = '';
    await (first ? store.putBlob(key, data) : store.appendBlob(key, data));
    first = false;
  };
  try {
    for (const message of messages) {
      pending += JSON.stringify(message) + '\n';
      if (pending.length >= FLUSH_BYTES) await flush();
    }
    if (pending.length > 0 || first) await flush();
  } catch (error) {
    await store.deleteBlob(key).catch(() => false);
    throw error;
  }
  return `${REF_PREFIX}${key.name}`;
}

/**
 * The messages of a transcript {@link saveTranscript} wrote, exactly as saved.
 * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is not stored or a line is not a message
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails
 */
export async function readTranscript(
  store: IContextStore,
  owner: TranscriptOwner,
  transcriptRef: string,
): Promise<ChatMessage[]> {
  if (!transcriptRef.startsWith(REF_PREFIX) || transcriptRef.length === REF_PREFIX.length)
    throw new TranscriptMissingError(transcriptRef, 'it is not a transcript ref');
  const key = transcriptKey(owner, transcriptRef.slice(REF_PREFIX.length));
  if ((await store.blobSize(key)) === undefined)
    throw new TranscriptMissingError(transcriptRef, 'it is not in the store');
  const messages: ChatMessage[] = [];
  for await (const line of streamLines(store.readBlob(key), Number.POSITIVE_INFINITY)) {
    if (line.text === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line.text);
    } catch {
      throw new TranscriptMissingError(transcriptRef, `line ${line.number} is not JSON`);
    }
    const role = (message as { role?: unknown } | null)?.role;
    if (typeof role !== 'string')
      throw new TranscriptMissingError(transcriptRef, `line ${line.number} is not a message`);
    messages.push(message as ChatMessage);
  }
  return messages;
}
