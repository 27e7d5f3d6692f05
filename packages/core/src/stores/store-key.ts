import type { StoreKey, StoreKeyPrefix, StoreKind } from '../contracts/context-store';
import { StoreKeyError } from '../errors/store-key-error';
import { encodeStoreKeyPart, MAX_ENCODED_STORE_KEY_PART } from './store-key-part-encoding';

/** Every {@link StoreKind}, in a fixed order. */
export const STORE_KINDS: readonly StoreKind[] = [
  'summary',
  'entities',
  'tool-output',
  'transcript',
  'state',
  'recall',
];

/**
 * Validates one part of a store key (agent id, session id or name): any non-empty string whose
 * stored form ({@link encodeStoreKeyPart}) has at most {@link MAX_ENCODED_STORE_KEY_PART}
 * characters (200 characters of `[A-Za-z0-9._:@-]`; fewer when other characters need escapes).
 * Paths, URLs, e-mail addresses and Unicode are fine: stores write the encoded form, which can
 * neither traverse paths nor collide.
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`)
 */
export function assertStoreKeyPart(part: string, value: unknown): asserts value is string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    encodeStoreKeyPart(value).length > MAX_ENCODED_STORE_KEY_PART
  ) {
    throw new StoreKeyError(part, typeof value === 'string' ? value : String(value));
  }
}

/**
 * Validates a whole store key: `agentId`, `sessionId` and `name` by {@link assertStoreKeyPart},
 * `kind` one of {@link STORE_KINDS}. Every store calls it before touching storage.
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`)
 */
export function assertStoreKey(key: StoreKey): void {
  if (typeof key !== 'object' || key === null) throw new StoreKeyError('key', String(key));
  assertStoreKeyPart('agentId', key.agentId);
  assertStoreKeyPart('sessionId', key.sessionId);
  assertStoreKind(key.kind);
  assertStoreKeyPart('name', key.name);
}

/**
 * Validates a listing prefix: `agentId` always, `sessionId` and `kind` when given.
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`)
 */
export function assertStoreKeyPrefix(prefix: StoreKeyPrefix): void {
  if (typeof prefix !== 'object' || prefix === null) throw new StoreKeyError('prefix', String(prefix));
  assertStoreKeyPart('agentId', prefix.agentId);
  if (prefix.sessionId !== undefined) assertStoreKeyPart('sessionId', prefix.sessionId);
  if (prefix.kind !== undefined) assertStoreKind(prefix.kind);
}

function assertStoreKind(kind: unknown): asserts kind is StoreKind {
  if (!STORE_KINDS.includes(kind as StoreKind)) throw new StoreKeyError('kind', String(kind));
}

/**
 * The canonical text form of a validated key, `agentId/sessionId/kind/name` with each part in its
 * stored form. Unambiguous because no stored form contains `/`. Used in error messages and as a map key.
 */
export function formatStoreKey(key: StoreKey): string {
  return (
    `${encodeStoreKeyPart(key.agentId)}/${encodeStoreKeyPart(key.sessionId)}/${key.kind}/` +
    `${encodeStoreKeyPart(key.name)}`
  );
}

/** True when `key` lies under `prefix`. */
export function storeKeyMatches(key: StoreKey, prefix: StoreKeyPrefix): boolean {
  return (
    key.agentId === prefix.agentId &&
    (prefix.sessionId === undefined || key.sessionId === prefix.sessionId) &&
    (prefix.kind === undefined || key.kind === prefix.kind)
  );
}

/** Orders keys by their text form, so that every store lists in the same, deterministic order. */
export function compareStoreKeys(a: StoreKey, b: StoreKey): number {
  const left = formatStoreKey(a);
  const right = formatStoreKey(b);
  return left < right ? -1 : left > right ? 1 : 0;
}
