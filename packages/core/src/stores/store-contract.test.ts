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
