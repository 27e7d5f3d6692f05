import type { IRecallBackend, RecallReadResult, RecallRecord, RecallScopeKey, RecallSearchHit } from '@ctxkit/core';
import { assertStoreKey, decodeStoreKeyPart, encodeStoreKeyPart } from '@ctxkit/core/strategy-kit';

import type { PostgresConnection } from './postgres-connection';
import { postgresStoreError } from './postgres-store-error';
import { advisoryLockKey } from './postgres-tables';
import { recallSearchText } from './recall-search-text';

/** A scope's columns: `agent_id`, `scope`, `scope_id` (ids in their stored form). */
type ScopeColumns = [string, 'session' | 'resource', string];

/** One record as the columns `append` writes. */
interface RecordRow {
  recordId: string;
  type: RecallRecord['type'];
  sessionId: string | null;
  from: number | null;
  json: string;
  searchText: string | null;
}

/**
 * Inserts one run of records in their order. An entry's `reset_seq` is the serial of the latest
 * reset of its session that covers its position (0 when none): the same entry appended twice (two
 * processes indexing one turn) collides on the unique key and is kept once, while an entry indexed
 * again after a reset removed it (a history edited there) is a new row.
 */
const INSERT_RECORDS = (table: string) => `
  INSERT INTO ${table}
    (agent_id, scope, scope_id, record_id, record_type, session_id, from_position, reset_seq, record, search)
  SELECT $1, $2, $3, r.record_id, r.record_type, r.session_id, r.from_position,
         CASE WHEN r.record_type = 'entry' THEN coalesce((
           SELECT max(reset.seq) FROM ${table} reset
           WHERE reset.agent_id = $1 AND reset.scope = $2 AND reset.scope_id = $3 AND reset.record_type = 'reset'
             AND reset.session_id = r.session_id AND reset.from_position <= r.from_position), 0)
         ELSE 0 END,
         r.record,
         CASE WHEN r.search_text IS NULL THEN NULL ELSE to_tsvector('english', r.search_text) END
  FROM unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[])
       WITH ORDINALITY AS r(record_id, record_type, session_id, from_position, record, search_text, ordinality)
  ORDER BY r.ordinality
  ON CONFLICT (agent_id, scope, scope_id, record_id, reset_seq) DO NOTHING`;

/**
 * Ranks the scope's live entries for a question. The question becomes an OR of its lexemes (each
 * quoted as a tsquery literal, so no character of it is read as an operator): a question rarely
 * holds every word of its answer, and `plainto_tsquery` would ask for all of them. An entry is live
 * unless a later reset of its session starts at or before its position. Ties: the newer entry first.
 */
const SEARCH_ENTRIES = (table: string) => `
  WITH question AS (
    SELECT string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery AS query
    FROM unnest(tsvector_to_array(to_tsvector('english', $4))) AS lexeme
  )
  SELECT entry.record_id, ts_rank_cd(entry.search, question.query, 1 | 32) AS score
  FROM ${table} entry CROSS JOIN question
  WHERE entry.agent_id = $1 AND entry.scope = $2 AND entry.scope_id = $3 AND entry.record_type = 'entry'
    AND entry.search @@ question.query
    AND NOT EXISTS (
      SELECT 1 FROM ${table} reset
      WHERE reset.agent_id = $1 AND reset.scope = $2 AND reset.scope_id = $3 AND reset.record_type = 'reset'
        AND reset.session_id = entry.session_id AND reset.from_position <= entry.from_position
        AND reset.seq > entry.seq)
  ORDER BY score DESC, entry.seq DESC
  LIMIT $5`;

/**
 * The recall backend of {@link PostgresContextStore}: every scope's records in one table,
 * `<prefix>_recall`, in append order (its `seq` serial), and the scope's live entries searched with
 * PostgreSQL's full-text search (`to_tsvector('english', …)`, a GIN index, `ts_rank_cd`).
 *
 * - `append` is one transaction per call, under a lock on the scope, so a reader sees all of a call's
 *   records or none, and records become visible in `seq` order: a reader's cursor (the last `seq` it
 *   read) never passes a record that commits later.
 * - A record whose id the scope holds already is not stored again (two processes indexing one turn);
 *   an entry indexed again after a reset removed it is.
 * - Scope ids are validated like store key parts (a non-empty string of at most 200 characters in
 *   its stored form) and written in their stored form.
 *
 * Get one with `store.recallBackend()`; it uses the store's pool and ends with it.
 *
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid scope
 * @throws StoreError (`CTXKIT_STORE_ERROR`) for a record that is not a recall record, an invalid
 *   cursor, a server that cannot be reached or replies with an error, or use after the store closed
 * @see docs/09-stores.md
 */
export class PostgresRecallBackend implements IRecallBackend {
  readonly name = 'postgres (recall log, full-text search)';

  /** @internal use `PostgresContextStore.recallBackend()` */
  constructor(private readonly connection: PostgresConnection) {}

  async append(scope: RecallScopeKey, records: ReadonlyArray<RecallRecord>): Promise<void> {
    const columns = scopeColumns(scope);
    const label = scopeLabel(scope);
    const rows = records.map((record) => recordRow(label, record));
    if (rows.length === 0) return;
    const table = this.connection.tables.recall;
    await this.connection.transaction('recall append', label, async (client) => {
      const lockKey = advisoryLockKey(`${table}\u0000${columns.join('\u0000')}`);
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey]);
      // One statement per run ending at a reset: the entries after a reset must see its serial, and
      // a statement does not see the rows it inserts itself.
      let start = 0;
      for (let index = 0; index < rows.length; index++) {
        if (rows[index]!.type !== 'reset' && index < rows.length - 1) continue;
        const run = rows.slice(start, index + 1);
        start = index + 1;
        await client.query(INSERT_RECORDS(table), [
          ...columns,
          run.map((row) => row.recordId),
          run.map((row) => row.type),
          run.map((row) => row.sessionId),
          run.map((row) => row.from),
          run.map((row) => row.json),
          run.map((row) => row.searchText),
        ]);
      }
    });
  }

  async read(scope: RecallScopeKey, cursor?: string): Promise<RecallReadResult> {
    const columns = scopeColumns(scope);
    const label = scopeLabel(scope);
    const after = cursor ?? '0';
    if (!/^\d{1,18}$/.test(after)) {
      const problem = `invalid cursor ${JSON.stringify(cursor)} (pass the cursor a read returned)`;
      throw postgresStoreError('recall read', label, problem);
    }
    // The serial leaves as text (a bigint may pass 2^53) under another name: ORDER BY a name that is
    // also an output column sorts by the output, and text sorts "10" before "9".
    const result = await this.connection.query<{ position: string; record: string }>(
      'recall read',
      label,
      `SELECT seq::text AS position, record FROM ${this.connection.tables.recall}
       WHERE agent_id = $1 AND scope = $2 AND scope_id = $3 AND seq > $4::bigint
       ORDER BY seq`,
      [...columns, after],
    );
    const records: RecallRecord[] = [];
    for (const row of result.rows) {
      try {
        records.push(JSON.parse(row.record) as RecallRecord);
      } catch {
        // A row that is not JSON (written by something else) is skipped; the next records still count.
      }
    }
    return { records, cursor: result.rows.at(-1)?.position ?? after };
  }

  async search(scope: RecallScopeKey, query: string, limit: number): Promise<RecallSearchHit[]> {
    const columns = scopeColumns(scope);
    const label = scopeLabel(scope);
    if (!Number.isFinite(limit) || limit < 1) return [];
    const text = recallSearchText(String(query));
    if (text.trim().length === 0) return [];
    const result = await this.connection.query<{ record_id: string; score: number }>(
      'recall search',
      label,
      SEARCH_ENTRIES(this.connection.tables.recall),
      [...columns, text, Math.floor(limit)],
    );
    return result.rows.map((row) => ({ id: decodeStoreKeyPart(row.record_id), score: Number(row.score) }));
  }
}

/** The scope's columns, validated as the generic backend's store key would be. */
function scopeColumns(scope: RecallScopeKey): ScopeColumns {
  if (typeof scope !== 'object' || scope === null || (scope.scope !== 'session' && scope.scope !== 'resource')) {
    const problem = 'a recall scope is { agentId, scope: "session" | "resource", id }';
    throw postgresStoreError('recall', String(scope?.scope), problem);
  }
  assertStoreKey({ agentId: scope.agentId, sessionId: scope.id, kind: 'recall', name: scope.scope });
  return [encodeStoreKeyPart(scope.agentId), scope.scope, encodeStoreKeyPart(scope.id)];
}

function scopeLabel(scope: RecallScopeKey): string {
  return `${encodeStoreKeyPart(scope.agentId)}/${scope.scope}/${encodeStoreKeyPart(scope.id)}`;
}

/**
 * A record's columns, checked. Record and session ids are written in the store-key form, like every
 * id of this store: any string, and no NUL (which PostgreSQL text cannot hold).
 */
function recordRow(label: string, record: RecallRecord): RecordRow {
  const invalid = (problem: string) => postgresStoreError('recall append', label, `not a recall record: ${problem}`);
  if (typeof record !== 'object' || record === null) throw invalid(String(record));
  if (record.type !== 'entry' && record.type !== 'reset' && record.type !== 'vectors') {
    throw invalid(`type ${JSON.stringify((record as { type?: unknown }).type)}`);
  }
  if (typeof record.id !== 'string' || record.id.length === 0) throw invalid('its id must be a non-empty string');
  let json: string;
  try {
    json = JSON.stringify(record);
  } catch (cause) {
    throw invalid(`it is not JSON (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  const recordId = encodeStoreKeyPart(record.id);
  if (record.type === 'vectors') {
    return { recordId, type: 'vectors', sessionId: null, from: null, json, searchText: null };
  }
  if (typeof record.sessionId !== 'string' || !Number.isSafeInteger(record.from) || record.from < 0) {
    throw invalid('an entry or a reset needs a sessionId and a non-negative integer from');
  }
  if (record.type === 'entry' && typeof record.text !== 'string') throw invalid('an entry needs its text');
  return {
    recordId,
    type: record.type,
    sessionId: encodeStoreKeyPart(record.sessionId),
    from: record.from,
    json,
    searchText: record.type === 'entry' ? recallSearchText(record.text) : null,
  };
}
