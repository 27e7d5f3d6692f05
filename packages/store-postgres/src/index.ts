/**
 * @ctxkit/store-postgres: the `IContextStore` on PostgreSQL, so that many agent processes on many
 * machines share summaries, entity state, cached tool outputs and transcripts, with recall logs
 * searched by PostgreSQL's full-text search. Explicit named exports only. See docs/09-stores.md.
 */
export type { PostgresContextStoreOptions } from './postgres-context-store';
export { DEFAULT_POSTGRES_CHUNK_SIZE, PostgresContextStore } from './postgres-context-store';
export { PostgresRecallBackend } from './postgres-recall-backend';
export { DEFAULT_POSTGRES_TABLE_PREFIX, PostgresTables } from './postgres-tables';
