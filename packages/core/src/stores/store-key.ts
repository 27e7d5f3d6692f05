import type { StoreKey, StoreKeyPrefix, StoreKind } from '../contracts/context-store';
import { StoreKeyError } from '../errors/store-key-error';

/** Every {@link StoreKind}, in a fixed order. */
export const STORE_KINDS: readonly StoreKind[] = ['summary', 'entities', 'tool-output', 'transcript', 'state'];

/**
 * The characters a key part may use: letters, digits, `.`, `_`, `:`, `@`, `-`, 1 to 200 of them.
 * No `/` or `\` (a key part is a single path segment in the file store and never a path).
 */
export const STORE_KEY_PART_PATTERN = /^[A-Za-z0-9._:@-]{1,200}$/;

/**
 * Validates one part of a store key (agent id, session id or name). Rejects path separators,
 * `..` anywhere, a leading `.`, and anything outside {@link STORE_KEY_PART_PATTERN}, so that no key
 * can traverse paths in a file-backed store or collide in a key-value store.
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`)
 */
export function assertStoreKeyPart(part: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || !STORE_KEY_PART_PATTERN.test(value) || value.startsWith('.') || value.includes('..')) {
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
 * The canonical text form of a validated key, `agentId/sessionId/kind/name`. Unambiguous because
 * no part may contain `/`. Used in error messages and as a map key.
 */
export function formatStoreKey(key: StoreKey): string {
  return `${key.agentId}/${key.sessionId}/${key.kind}/${key.name}`;
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
