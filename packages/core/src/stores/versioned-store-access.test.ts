import type { BlobRange, IContextStore, StoreKey, StoreKeyPrefix } from '../contracts/context-store';
import { MemoryContextStore } from './memory-context-store';
import { readVersioned, supportsCompareAndSet, UNVERSIONED, writeIfVersion } from './versioned-store-access';

/** A store written before compare-and-set: everything but getVersioned and setIfVersion. */
class StoreWithoutCompareAndSet implements IContextStore {
  readonly name = 'plain';
  private readonly inner = new MemoryContextStore();
  get<T>(key: StoreKey) {
    return this.inner.get<T>(key);
  }
  set(key: StoreKey, value: unknown) {
    return this.inner.set(key, value);
  }
  delete(key: StoreKey) {
    return this.inner.delete(key);
  }
  list(prefix: StoreKeyPrefix) {
    return this.inner.list(prefix);
  }
  putBlob(key: StoreKey, data: string | Uint8Array) {
    return this.inner.putBlob(key, data);
  }
  appendBlob(key: StoreKey, data: string | Uint8Array) {
    return this.inner.appendBlob(key, data);
  }
  readBlob(key: StoreKey, range?: BlobRange) {
    return this.inner.readBlob(key, range);
  }
  blobSize(key: StoreKey) {
    return this.inner.blobSize(key);
  }
  deleteBlob(key: StoreKey) {
    return this.inner.deleteBlob(key);
  }
  listBlobs(prefix: StoreKeyPrefix) {
    return this.inner.listBlobs(prefix);
  }
}

const key: StoreKey = { agentId: 'agent', sessionId: 's1', kind: 'state', name: 'value' };

describe('versioned store access', () => {
  it('tells a store with compare-and-set from one without', () => {
    expect(supportsCompareAndSet(new MemoryContextStore())).toBe(true);
    expect(supportsCompareAndSet(new StoreWithoutCompareAndSet())).toBe(false);
    const halfway = Object.assign(new StoreWithoutCompareAndSet(), { getVersioned: async () => undefined });
    expect(supportsCompareAndSet(halfway)).toBe(false);
  });

  it("uses the store's compare-and-set when it has one: a stale version is refused", async () => {
    const store = new MemoryContextStore();
    const created = await writeIfVersion(store, key, { n: 1 }, undefined);
    if (!created.ok) throw new Error('create failed');
    await expect(readVersioned(store, key)).resolves.toEqual({ value: { n: 1 }, version: created.version });
    await expect(writeIfVersion(store, key, { n: 2 }, created.version)).resolves.toMatchObject({ ok: true });
    await expect(writeIfVersion(store, key, { n: 3 }, created.version)).resolves.toEqual({
      ok: false,
      current: { value: { n: 2 }, version: expect.any(String) },
    });
    await expect(store.get(key)).resolves.toEqual({ n: 2 });
  });

  it('falls back to get and set on a store without: every write lands (last writer wins)', async () => {
    const store = new StoreWithoutCompareAndSet();
    await expect(readVersioned(store, key)).resolves.toBeUndefined();
    await expect(writeIfVersion(store, key, { n: 1 }, undefined)).resolves.toEqual({ ok: true, version: UNVERSIONED });
    await expect(readVersioned(store, key)).resolves.toEqual({ value: { n: 1 }, version: UNVERSIONED });
    await expect(writeIfVersion(store, key, { n: 2 }, 'any version')).resolves.toEqual({
      ok: true,
      version: UNVERSIONED,
    });
    await expect(store.get(key)).resolves.toEqual({ n: 2 });
  });
});
