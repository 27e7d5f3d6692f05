import type { ChatMessage } from '@ctxkit/core';

/** What a compaction left: `prefix` replaces the caller's history before `keepFrom`, however the caller passes it. */
export interface CompactionState {
  /** Retain + summary (or the provider's compaction item), then a copy of the carried user message, if any. */
  prefix: ChatMessage[];
  keepFrom: number;
  /** The caller's messages before `keepFrom`, to recognize the same history at the next call. */
  covered: ChatMessage[];
  transcriptRef: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Compactions so far in this session. */
  count: number;
  /** Index of the user message carried after the summary (a long one-turn agent run compacted inside its turn). */
  carriedSource?: number;
}

/** A compaction as an epoch keeps it: `covered` is the start of its own transcript. */
export type SavedCompactionState = Omit<CompactionState, 'covered'>;

export function sameMessage(a: Readonly<ChatMessage> | undefined, b: Readonly<ChatMessage> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.role !== b.role) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when `history` starts with the compaction's prefix (the caller adopted the compacted history). */
export function startsWithPrefix(history: ReadonlyArray<ChatMessage>, prefix: ReadonlyArray<ChatMessage>): boolean {
  if (prefix.length === 0 || history.length < prefix.length) return false;
  return prefix.every((message, index) => sameMessage(history[index], message));
}

/** True when `history` has the compacted history's messages before `keepFrom`. */
export function continuesCovered(
  history: ReadonlyArray<ChatMessage>,
  state: Pick<CompactionState, 'covered' | 'keepFrom'>,
): boolean {
  if (history.length < state.keepFrom) return false;
  for (let index = 0; index < state.keepFrom; index++)
    if (!sameMessage(history[index], state.covered[index])) return false;
  return true;
}
