import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { StoreError } from '../errors/store-error';
import { FileContextStore } from './file-context-store';

const key = { agentId: 'agent-a', sessionId: 's1', kind: 'summary' as const, name: 'current' };

describe('FileContextStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-file-store-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('#set', () => {
    it('leaves the previous value intact and no temporary file when the rename fails', async () => {
      const store = new FileContextStore({ rootDir: dir });
      await store.set(key, { summary: 'v1' });
      jest
        .spyOn(fs.promises, 'rename')
        .mockRejectedValueOnce(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
      await expect(store.set(key, { summary: 'v2' })).rejects.toBeInstanceOf(StoreError);
      await expect(store.get(key)).resolves.toEqual({ summary: 'v1' });
      const files = fs.readdirSync(path.join(dir, 'values', 'agent-a', 's1', 'summary'));
      expect(files).toEqual(['current.json']);
    });

    it('leaves the previous blob intact when the rename of a putBlob fails', async () => {
      const store = new FileContextStore({ rootDir: dir });
      await store.putBlob(key, 'old bytes');
      jest.spyOn(fs.promises, 'rename').mockRejectedValueOnce(new Error('EIO'));
      await expect(store.putBlob(key, 'new bytes')).rejects.toMatchObject({ code: 'CTXKIT_STORE_ERROR' });
      const parts: Buffer[] = [];
      for await (const chunk of store.readBlob(key)) parts.push(Buffer.from(chunk));
      expect(Buffer.concat(parts).toString()).toBe('old bytes');
    });

    it('persists across instances on the same directory', async () => {
      await new FileContextStore({ rootDir: dir, fsync: true }).set(key, { n: 1 });
      await expect(new FileContextStore({ rootDir: dir }).get(key)).resolves.toEqual({ n: 1 });
    });

    it('keeps the last of concurrent writes whole', async () => {
      const store = new FileContextStore({ rootDir: dir });
      const big = (n: number) => ({ n, text: String(n).repeat(100_000) });
      await Promise.all([1, 2, 3, 4, 5].map((n) => store.set(key, big(n))));
      const value = await store.get<{ n: number; text: string }>(key);
      expect(value!.text).toBe(String(value!.n).repeat(100_000));
    });
  });

  describe('#get', () => {
    it('reports a corrupt file as StoreError instead of returning garbage', async () => {
      const store = new FileContextStore({ rootDir: dir });
      await store.set(key, { ok: true });
      fs.writeFileSync(path.join(dir, 'values', 'agent-a', 's1', 'summary', 'current.json'), '{"ok": tr');
      await expect(store.get(key)).rejects.toBeInstanceOf(StoreError);
    });
  });

  describe('#constructor', () => {
    it('requires a root directory', () => {
      expect(() => new FileContextStore({ rootDir: '' })).toThrow(StoreError);
    });
  });
});
