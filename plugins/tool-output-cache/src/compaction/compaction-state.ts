import type { ChatMessage } from '@ctxkit/core';

/**
 * What a compaction left behind, so that a caller who keeps passing its full history receives the
 * compacted view: everything before `keepFrom` in the caller's history is replaced by `prefix`
 * (retain + summary), everything from `keepFrom` on is kept.
 */
export interface CompactionState {
  /**
   * The retain (when any) and summary user messages, or the assistant message holding the provider's
   * compaction item (`compaction.engine`), then, when `carriedSource` is set, a copy of the user
   * message carried after them.
   */
  prefix: ChatMessage[];
  /** Index in the caller's history where the kept turns start. */
  keepFrom: number;
  /** The caller's messages before `keepFrom`, to recognize the same history on the next call. */
  covered: ChatMessage[];
  transcriptRef: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Compactions so far in this session. */
  count: number;
  /**
   * Index in the caller's history of the user message carried after the summary (a long
   * single-turn agent run compacted inside its own turn); its copy is the last prefix message.
   */
  carriedSource?: number;
}

/**
 * A compaction as an epoch keeps it (JSON): everything but the messages it covered, which are the
 * start of its own transcript (`covered` is the transcript's first `keepFrom` messages).
 */
export type SavedCompactionState = Omit<CompactionState, 'covered'>;

/** True when two messages are the same object or have the same JSON. */
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

/** True when `history` continues the history that was compacted (same messages before `keepFrom`). */
export function continuesCovered(
  history: ReadonlyArray<ChatMessage>,
  state: Pick<CompactionState, 'covered' | 'keepFrom'>,
): boolean {
  if (history.length < state.keepFrom) return false;
  for (let index = 0; index < state.keepFrom; index++)
    if (!sameMessage(history[index], state.covered[index])) return false;
  return true;
}
