import type { IContextStore, StoreKey, VersionedSetResult, VersionedValue } from '../contracts/context-store';

/** A store that offers compare-and-set (`getVersioned` and `setIfVersion`). */
export type VersionedContextStore = IContextStore & Required<Pick<IContextStore, 'getVersioned' | 'setIfVersion'>>;

/**
 * The version {@link readVersioned} reports for every value of a store without compare-and-set;
 * {@link writeIfVersion} ignores it there.
 */
export const UNVERSIONED = '';

/** True when the store offers compare-and-set: both `getVersioned` and `setIfVersion`. */
export function supportsCompareAndSet(store: IContextStore): store is VersionedContextStore {
  return typeof store.getVersioned === 'function' && typeof store.setIfVersion === 'function';
}

/**
 * Reads a JSON value with its version through `getVersioned`; on a store without compare-and-set,
 * through `get`, with the version {@link UNVERSIONED}.
 * @throws whatever the store throws (`StoreError`, `StoreKeyError`)
 */
export async function readVersioned<T = unknown>(
  store: IContextStore,
  key: StoreKey,
): Promise<VersionedValue<T> | undefined> {
  if (supportsCompareAndSet(store)) return store.getVersioned<T>(key);
  const value = await store.get<T>(key);
  return value === undefined ? undefined : { value, version: UNVERSIONED };
}

/**
 * Writes a JSON value if it is still at `expectedVersion` (`undefined`: absent) through
 * `setIfVersion`. On a store without compare-and-set it writes with `set` and reports success: the
 * last writer wins there, and a concurrent update can be lost.
 * @throws whatever the store throws (`StoreError`, `StoreKeyError`)
 */
export async function writeIfVersion(
  store: IContextStore,
  key: StoreKey,
  value: unknown,
  expectedVersion: string | undefined,
): Promise<VersionedSetResult> {
  if (supportsCompareAndSet(store)) return store.setIfVersion(key, value, expectedVersion);
  await store.set(key, value);
  return { ok: true, version: UNVERSIONED };
}
