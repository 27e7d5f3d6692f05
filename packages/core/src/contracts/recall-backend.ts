/**
 * Where one recall index lives: a session's own turns (`scope: 'session'`, `id` the session id) or
 * every session of one resource, such as a user (`scope: 'resource'`, `id` the resource id). Indexes
 * of different agents, scopes or ids never see each other's entries.
 */
export interface RecallScopeKey {
  agentId: string;
  scope: 'session' | 'resource';
  id: string;
}

/**
 * One indexed unit of a conversation: a user message, an assistant message, or an assistant's tool
 * calls with their results (never split). What the recall layer ranks and sends back.
 */
export interface RecallEntry {
  type: 'entry';
  /** Unique within its scope; the same unit indexed twice (two processes) has the same id. */
  id: string;
  /** The session the unit belongs to. */
  sessionId: string;
  /** The unit's range `[from, to)` in its session's history. */
  from: number;
  to: number;
  /** When it was indexed (ms since epoch): the date recalled turns are labelled with. */
  at: number;
  /** The unit's messages as text, one `role: content` block each (what is searched and sent). */
  text: string;
  /** Fingerprint of the unit's messages: tells a rewritten history from the indexed one. */
  fingerprint: string;
  /** Tokens of the entry's line in a recall block, by the encoding named (counted once, when indexed). */
  tokens?: { encoding: string; count: number };
  /** The unit's vector, when an embedder was configured. */
  vector?: number[];
  /** The embedder model of `vector`. */
  embeddingModel?: string;
}

/**
 * Marks every entry of `sessionId` from history position `from` on as gone: the session's history
 * was rewritten there (an edit, an undo, a compaction), and its new messages are indexed again after
 * this record.
 */
export interface RecallReset {
  type: 'reset';
  /** Unique within its scope. */
  id: string;
  sessionId: string;
  from: number;
  at: number;
}

/**
 * Vectors for entries indexed before (embedding runs after indexing, so that recall by words works
 * at once and a slow or failing embedder never holds a turn up).
 */
export interface RecallVectors {
  type: 'vectors';
  /** Unique within its scope. */
  id: string;
  /** The embedder model of every vector. */
  model: string;
  vectors: Array<{ entryId: string; vector: number[] }>;
}

/** One record of a recall log, oldest first. */
export type RecallRecord = RecallEntry | RecallReset | RecallVectors;

/** What {@link IRecallBackend.read} returns. */
export interface RecallReadResult {
  /** The records appended after the cursor given, in append order. */
  records: RecallRecord[];
  /** Pass it to the next `read` to get only what was appended since. */
  cursor: string;
}

/** One lexical match a backend's own search found. */
export interface RecallSearchHit {
  id: string;
  score: number;
}

/**
 * Keeps recall logs: append-only records per scope, read incrementally, so that several processes
 * serving one resource see each other's turns. Two writers may append a record with the same id (two
 * processes indexing one turn): a backend may keep both, and readers keep the first they read.
 * Every store gives one: the generic one appends JSON lines to a blob of the store (memory, file,
 * Redis); a store with its own search (PostgreSQL full-text search) offers `search` as well.
 * @see docs/09-stores.md
 */
export interface IRecallBackend {
  readonly name: string;
  /** Appends records, atomically per call: a reader sees all of them or none. */
  append(scope: RecallScopeKey, records: ReadonlyArray<RecallRecord>): Promise<void>;
  /** The records appended after `cursor` (all of them without one), oldest first. */
  read(scope: RecallScopeKey, cursor?: string): Promise<RecallReadResult>;
  /**
   * The backend's own lexical search over the scope's live entries (not reset), best first. Without
   * it the recall layer ranks in memory.
   */
  search?(scope: RecallScopeKey, query: string, limit: number): Promise<RecallSearchHit[]>;
}
