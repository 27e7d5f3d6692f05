import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { runStoreContract } from '../testing/store-contract';
import { FileContextStore } from './file-context-store';
import { MemoryContextStore } from './memory-context-store';

runStoreContract('MemoryContextStore', async () => new MemoryContextStore());

runStoreContract(
  'FileContextStore',
  async () => new FileContextStore({ rootDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-contract-')) }),
  (store) => fs.rmSync((store as FileContextStore).rootDir, { recursive: true, force: true }),
);

// A store written before compare-and-set still passes the contract, declaring that it has none.
runStoreContract(
  'MemoryContextStore without compare-and-set',
  async () => {
    const inner = new MemoryContextStore();
    return Object.assign(Object.create(inner) as MemoryContextStore, {
      getVersioned: undefined,
      setIfVersion: undefined,
    });
  },
  undefined,
  { compareAndSet: false, largeBlobBytes: 1024 * 1024 },
);
