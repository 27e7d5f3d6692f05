/**
 * @ctxkit/store-redis: the distributed `IContextStore` on Redis, so that many agent processes
 * on many machines share summaries, entity state, cached tool outputs and transcripts.
 * Explicit named exports only. See docs/09-stores.md.
 */
export type { RedisContextStoreOptions } from './redis-context-store';
export { DEFAULT_REDIS_CHUNK_SIZE, DEFAULT_REDIS_URL, RedisContextStore } from './redis-context-store';
export type { RedisEntryType } from './redis-key-layout';
export { DEFAULT_REDIS_KEY_PREFIX, RedisKeyLayout } from './redis-key-layout';
export type { RedisWriteOperation } from './redis-write-operation';
