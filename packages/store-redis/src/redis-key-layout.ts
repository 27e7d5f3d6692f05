import type { StoreKey, StoreKeyPrefix, StoreKind } from '@ctxkit/core';
import { StoreKeyError } from '@ctxkit/core';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  decodeStoreKeyPart,
  encodeStoreKeyPart,
  STORE_KINDS,
} from '@ctxkit/core/strategy-kit';

/** What a Redis key holds: a JSON value or the bytes of a blob. */
export type RedisEntryType = 'value' | 'blob';

/** The default key prefix: keys look like `ctxkit:{agentId}:{sessionId}:{kind}:{name}`. */
export const DEFAULT_REDIS_KEY_PREFIX = 'ctxkit';

/** Suffix segment of a blob's Redis key; a value's key has none. */
const BLOB_SEGMENT = 'blob';

/**
 * A key prefix: 1 to 100 of `[A-Za-z0-9._:@-]`, so it can never contain a SCAN glob character
 * (`*`, `?`, `[`, `\`).
 */
const PREFIX_PATTERN = /^[A-Za-z0-9._:@-]{1,100}$/;

/**
 * A key part's Redis segment: core's stored form (`encodeStoreKeyPart`, which never writes `%3A`)
 * with `:`, the Redis separator, written as `%3A`. Every id made of `[A-Za-z0-9._@-]` is stored as
 * it reads.
 */
function encodePart(part: string): string {
  return encodeStoreKeyPart(part).replaceAll(':', '%3A');
}

function decodePart(part: string): string {
  return decodeStoreKeyPart(part.replaceAll('%3A', ':'));
}

/**
 * Maps store keys to Redis keys and back.
 *
 * - JSON value: `{prefix}:{agentId}:{sessionId}:{kind}:{name}` (a Redis string holding JSON)
 * - blob: `{prefix}:{agentId}:{sessionId}:{kind}:{name}:blob` (a Redis string holding the bytes)
 *
 * Every part is validated with `assertStoreKey` before a Redis key is built.
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for an invalid key part or prefix
 * @see docs/09-stores.md
 */
export class RedisKeyLayout {
  readonly prefix: string;

  /** @param prefix @default 'ctxkit' */
  constructor(prefix: string = DEFAULT_REDIS_KEY_PREFIX) {
    if (!PREFIX_PATTERN.test(prefix) || prefix.endsWith(':')) throw new StoreKeyError('prefix', prefix);
    this.prefix = prefix;
  }

  /** The Redis key of a JSON value. */
  valueKey(key: StoreKey): string {
    assertStoreKey(key);
    return `${this.prefix}:${encodePart(key.agentId)}:${encodePart(key.sessionId)}:${key.kind}:${encodePart(key.name)}`;
  }

  /** The Redis key of a blob. */
  blobKey(key: StoreKey): string {
    return `${this.valueKey(key)}:${BLOB_SEGMENT}`;
  }

  /**
   * The SCAN `MATCH` pattern for every key under a prefix. Encoded parts use no glob characters,
   * so nothing needs escaping; the trailing `:*` keeps `agent-1` from matching `agent-10`.
   */
  matchPattern(prefix: StoreKeyPrefix): string {
    assertStoreKeyPrefix(prefix);
    let pattern = `${this.prefix}:${encodePart(prefix.agentId)}:`;
    if (prefix.sessionId !== undefined) {
      pattern += `${encodePart(prefix.sessionId)}:`;
      if (prefix.kind !== undefined) pattern += `${prefix.kind}:`;
    } else if (prefix.kind !== undefined) {
      pattern += `*:${prefix.kind}:`;
    }
    return `${pattern}*`;
  }

  /** Parses a Redis key written by this layout, or returns `undefined` for anything else. */
  parse(redisKey: string): { key: StoreKey; type: RedisEntryType } | undefined {
    if (!redisKey.startsWith(`${this.prefix}:`)) return undefined;
    const segments = redisKey.slice(this.prefix.length + 1).split(':');
    let type: RedisEntryType = 'value';
    if (segments.length === 5 && segments[4] === BLOB_SEGMENT) type = 'blob';
    else if (segments.length !== 4) return undefined;
    const [agentId, sessionId, kind, name] = segments as [string, string, string, string];
    if (!STORE_KINDS.includes(kind as StoreKind)) return undefined;
    return {
      key: {
        agentId: decodePart(agentId),
        sessionId: decodePart(sessionId),
        kind: kind as StoreKind,
        name: decodePart(name),
      },
      type,
    };
  }
}
