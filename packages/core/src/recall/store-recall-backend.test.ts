import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { FileContextStore } from '../stores/file-context-store';
import { MemoryContextStore } from '../stores/memory-context-store';
import { runRecallBackendContract } from '../testing/recall-backend-contract';
import { recallBackendFor, StoreRecallBackend } from './store-recall-backend';

runRecallBackendContract('StoreRecallBackend over MemoryContextStore', async () => {
  const store = new MemoryContextStore();
  return { backend: new StoreRecallBackend(store), other: new StoreRecallBackend(store) };
});

runRecallBackendContract('StoreRecallBackend over FileContextStore', async () => {
  const rootDir = await mkdtemp(path.join(tmpdir(), 'ctxkit-recall-'));
  return {
    backend: new StoreRecallBackend(new FileContextStore({ rootDir })),
    other: new StoreRecallBackend(new FileContextStore({ rootDir })),
    close: () => rm(rootDir, { recursive: true, force: true }),
  };
});

describe('recallBackendFor', () => {
  it("uses the store's own recall backend when it has one", () => {
    const own = new StoreRecallBackend(new MemoryContextStore());
    const store = Object.assign(new MemoryContextStore(), { recallBackend: () => own });
    expect(recallBackendFor(store)).toBe(own);
  });

  it("keeps records as JSON lines in the store's blobs otherwise", () => {
    expect(recallBackendFor(new MemoryContextStore())).toBeInstanceOf(StoreRecallBackend);
  });
});
