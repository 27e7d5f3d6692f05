import type { ChatMessage } from '@ctxkit/core';
import { contentDigest, contentText } from '@ctxkit/core/strategy-kit';

import type { PersistedEntityState, ReadPoint } from '../state/entity-state';

/**
 * Where extraction resumes in `history` (the index of the last message read; -1 for none), handling a
 * history rewritten since the state was written. The extraction point is a user message, or a tool
 * result for an extractor that reads tool results as they arrive; it is recognised by its text's
 * fingerprint. A history that ends before the extraction point but holds the messages read where they
 * were read is a late request (another instance or process has read further since the caller's call
 * began): nothing in it is new, and the extraction point stays where it is.
 */
export function resumePoint(history: ReadonlyArray<Readonly<ChatMessage>>, persisted: PersistedEntityState): number {
  const { processedThrough, processedFingerprint, restoredReadPoint } = persisted;
  if (processedThrough < 0 || processedFingerprint === null) return processedThrough;
  if (isReadPointAt(history, processedThrough, processedFingerprint)) return processedThrough;
  if (history.length <= processedThrough && holdsReadPoints(history, persisted.readPoints)) return processedThrough;
  // An earlier history than the one an undo left read: it resumes where reading stood before the undone extractions.
  if (restoredReadPoint && isReadPointAt(history, restoredReadPoint.index, restoredReadPoint.fingerprint))
    return restoredReadPoint.index;
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

/**
 * True when `history` holds at least one of the recorded read points within its length and every one
 * of them is there as it was read (an edited or moved message makes it a rewritten history).
 */
function holdsReadPoints(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  points: readonly ReadPoint[] | undefined,
): boolean {
  const within = (points ?? []).filter((point) => point.index < history.length);
  return within.length > 0 && within.every((point) => isReadPointAt(history, point.index, point.fingerprint));
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
