import type { ChatMessage, IContextStore, StoreKey } from '@ctxkit/core';

import { streamLines } from '../cache/stream-lines';
import { TranscriptMissingError } from './transcript-missing-error';

const REF_PREFIX = 'transcript:';

/** The store key of a transcript ref (`transcript:<name>`, as `saveTranscript` reports it). */
export function transcriptKey(owner: { agentId: string; sessionId: string }, transcriptRef: string): StoreKey {
  if (!transcriptRef.startsWith(REF_PREFIX) || transcriptRef.length === REF_PREFIX.length)
    throw new TranscriptMissingError(transcriptRef, 'it is not a transcript ref');
  return {
    agentId: owner.agentId,
    sessionId: owner.sessionId,
    kind: 'transcript',
    name: transcriptRef.slice(REF_PREFIX.length),
  };
}

/**
 * Reads back a transcript `saveTranscript` wrote (JSONL, one message a line), streamed from the store:
 * the messages exactly as they were saved.
 * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is not stored or a line is not a message
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails
 */
export async function readTranscript(
  store: IContextStore,
  owner: { agentId: string; sessionId: string },
  transcriptRef: string,
): Promise<ChatMessage[]> {
  const key = transcriptKey(owner, transcriptRef);
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
