import type { ChatMessage } from '@ctxkit/core';
import { contentDigest, contentText } from '@ctxkit/core/strategy-kit';
import type { PersistedEntityState } from '../state/entity-state';

/**
 * Where extraction resumes in `history` (the index of the last message read; -1 for none), handling a
 * history rewritten since the state was written. The extraction point is a user message, or a tool
 * result for an extractor that reads tool results as they arrive; it is recognised by its text's
 * fingerprint.
 */
export function resumePoint(history: ReadonlyArray<Readonly<ChatMessage>>, persisted: PersistedEntityState): number {
  const { processedThrough, processedFingerprint, restoredReadPoint } = persisted;
  if (processedThrough < 0 || processedFingerprint === null) return processedThrough;
  if (isReadPointAt(history, processedThrough, processedFingerprint)) return processedThrough;
  // An earlier history than the one an undo left read: it resumes where reading stood before the undone extractions.
  if (restoredReadPoint && isReadPointAt(history, restoredReadPoint.index, restoredReadPoint.fingerprint)) return restoredReadPoint.index;
  // The history was rewritten (compacted, replaced, or another conversation's): find the newest
  // message already extracted; otherwise the newest user message and what follows it count as new.
  let newestUser = -1;
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (!isExtractionPoint(message)) continue;
    if (newestUser === -1 && message.role === 'user') newestUser = index;
    if (contentDigest(contentText(message.content)) === processedFingerprint) return index;
  }
  return newestUser === -1 ? history.length - 1 : newestUser - 1;
}

/** True when `history[index]` is the extraction point whose text has `fingerprint`. */
function isReadPointAt(history: ReadonlyArray<Readonly<ChatMessage>>, index: number, fingerprint: string): boolean {
  const at = history[index];
  return at !== undefined && isExtractionPoint(at) && contentDigest(contentText(at.content)) === fingerprint;
}

/** A message an extraction can end at: a user message or a tool result (both carry the text read). */
function isExtractionPoint(message: Readonly<ChatMessage>): boolean {
  return message.role === 'user' || message.role === 'tool';
}
