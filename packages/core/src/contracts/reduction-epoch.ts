import type { ChatMessage } from './chat-message';

/** What kind of state change an epoch records. */
export type EpochKind = 'fold' | 'extraction' | 'compaction' | 'trim';

/**
 * One reduction that changed a session's durable state (a fold into the summary, an extraction that
 * changed the entity state, a compaction, a tool output trimmed to a placeholder), kept in the store with
 * what the state was before it, so that `undo(id)` can put it back. See docs/14-controlling-what-survives.md.
 */
export interface ReductionEpoch {
  /** Unique within the session (`e1`, `e2`, … in the order they were recorded). */
  id: string;
  kind: EpochKind;
  /** ms since epoch, when it was recorded. */
  at: number;
  /** The session's turn (user messages seen) when it was recorded. */
  turn: number;
  /** One line saying what changed: "folded messages 0–11 (4 turns, 2,310 tokens) into the summary". */
  description: string;
  /** History messages `[from, to)` the reduction covered, when it covered a range of the history. */
  range?: { from: number; to: number };
  /** Tokens of what was reduced, before and after, when known. */
  tokensBefore?: number;
  tokensAfter?: number;
}

/** A history message a preview names, with enough to recognise it. */
export interface PreviewItem {
  /** Index into the history the preview was computed for. */
  index: number;
  role: ChatMessage['role'];
  /** Tokens of the message by the strategy's counter. */
  tokens: number;
  /** Its text, shortened to about 80 characters. */
  excerpt: string;
}

/**
 * What the next compose (and the reduction it would trigger) would do to a history, computed without
 * doing it: nothing is stored, no event is emitted, no model is called.
 */
export interface ReductionPreview {
  /** Messages the payload would leave out (still in the history, recoverable from it). */
  dropped: PreviewItem[];
  /** Messages the next fold would write into the summary. */
  folded: PreviewItem[];
  /** Messages the next compaction would replace by its summary. */
  compacted: PreviewItem[];
  /** Tool outputs that would be shown as a placeholder, cut or micro-compacted. */
  trimmed: PreviewItem[];
  /** Messages older than the window that would be sent again in the recall block (strategies with recall). */
  recalled?: PreviewItem[];
  /** Tokens of the payload that compose would return. */
  payloadTokens: number;
  /** One line per planned change, in plain words. */
  notes: string[];
}

/** What `undo(epochId)` did. */
export interface UndoResult {
  /** The epoch undone. */
  undone: ReductionEpoch;
  /** Later epochs undone with it (their state was built on the undone one), newest first. */
  alsoUndone: ReductionEpoch[];
  /**
   * The history the host continues with, when the undone reduction had replaced the host's history
   * (a compaction): the transcript saved before it. Absent when the host's history is unchanged.
   */
  history?: ChatMessage[];
}
