/**
 * The conversation state: a JSON object whose top-level fields are the state schema's properties.
 * A field that has never been set (or was cleared with `null`) is absent.
 */
export type EntityState = Record<string, unknown>;

/** One changed top-level field of an update. `undefined` stands for "absent" (JSON: the key is left out). */
export interface EntityFieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** Which extractor produced an update. */
export type ExtractorKind = 'llm' | 'offline';

/**
 * One version of the state. Each successful update that
 * changed something gets the next version number; version 0 is the empty state.
 */
export interface EntityStateVersion {
  version: number;
  /**
   * Index into the caller's history of the newest message the update read: a user message, or a
   * tool result when the extractor reads tool results as they arrive.
   */
  sourceMessageIndex: number;
  /** Changed fields with old and new values; `after: null` for a cleared field. */
  diff: EntityFieldChange[];
  /** `context.now()` when the update was applied (ms since epoch). */
  timestamp: number;
  /** True when the deterministic offline extractor (or an offline client) produced it. */
  offline: boolean;
  /** The extractor: `llm:<client name>/<model>` or `offline-extractor`. */
  extractor: string;
}

/** A message an extraction ended at: its index in the history and its text's fingerprint. */
export interface ReadPoint {
  index: number;
  fingerprint: string;
}

/** What the strategy persists in the store (kind `entities`, name `state`). */
export interface PersistedEntityState {
  format: 1;
  state: EntityState;
  versions: EntityStateVersion[];
  /** Index of the newest message already extracted, a user message or a tool result (-1 before the first). */
  processedThrough: number;
  /** Fingerprint of that message's text, to recognise it in a rewritten history. */
  processedFingerprint: string | null;
  /**
   * Messages extractions ended at, oldest first, each with its text's fingerprint: the newest ones
   * all, older ones fewer and fewer. A history shorter than the read point that still holds these
   * messages where they were read is a late request (a call that started before another instance read
   * further), not a rewritten history. Absent in states written before it was kept.
   */
  readPoints?: ReadPoint[];
  /**
   * Where extraction had read to before the extractions an undo took back, while no extraction has
   * run since: a history that no longer holds the message at `processedThrough` (an earlier one)
   * resumes from here when it holds this one, instead of reading its messages again.
   */
  restoredReadPoint?: { index: number; fingerprint: string };
}
