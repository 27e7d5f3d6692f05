import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IContextStore, StoreKey } from '../contracts/context-store';
import { StoreError } from '../errors/store-error';
import { StoreKeyError } from '../errors/store-key-error';
import { FileContextStore } from './file-context-store';
import { MemoryContextStore } from './memory-context-store';

const key = (name: string, extra: Partial<StoreKey> = {}): StoreKey => ({
  agentId: 'agent-a',
  sessionId: 's1',
  kind: 'state',
  name,
  ...extra,
});

async function readAll(iterable: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of iterable) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const factories: Array<[string, () => IContextStore]> = [
  ['MemoryContextStore', () => new MemoryContextStore({ chunkSize: 4 })],
  [
    'FileContextStore',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-store-'));
      tempDirs.push(dir);
      return new FileContextStore({ rootDir: dir, chunkSize: 4 });
    },
  ],
];

describe.each(factories)('%s', (_name, createStore) => {
  let store: IContextStore;
  beforeEach(() => {
    store = createStore();
  });

  describe('#get / #set', () => {
    it('returns undefined for a key never set', async () => {
      await expect(store.get(key('missing'))).resolves.toBeUndefined();
    });

    it('returns a copy: changing the written or the read object changes nothing stored', async () => {
      const value = { destination: '東京', dates: ['2025-01-01'] };
      await store.set(key('trip'), value);
      value.dates.push('mutated');
      const read = await store.get<typeof value>(key('trip'));
      expect(read).toEqual({ destination: '東京', dates: ['2025-01-01'] });
      read!.dates.push('mutated again');
      await expect(store.get(key('trip'))).resolves.toEqual({ destination: '東京', dates: ['2025-01-01'] });
    });

    it('keeps agents, sessions and kinds apart', async () => {
      await store.set(key('x'), 1);
      await store.set(key('x', { sessionId: 's2' }), 2);
      await store.set(key('x', { agentId: 'agent-b' }), 3);
      await store.set(key('x', { kind: 'summary' }), 4);
      await expect(store.get(key('x'))).resolves.toBe(1);
      await expect(store.get(key('x', { sessionId: 's2' }))).resolves.toBe(2);
      await expect(store.get(key('x', { agentId: 'agent-b' }))).resolves.toBe(3);
      await expect(store.get(key('x', { kind: 'summary' }))).resolves.toBe(4);
    });

    it('rejects undefined with StoreError', async () => {
      await expect(store.set(key('u'), undefined)).rejects.toBeInstanceOf(StoreError);
    });

    it('stores a traversing key under its encoded form and rejects an empty part before touching storage', async () => {
      await store.set(key('../../etc/passwd'), 1);
      await expect(store.get(key('../../etc/passwd'))).resolves.toBe(1);
      await expect(store.get(key('x', { agentId: '..' }))).resolves.toBeUndefined();
      await expect(store.get(key('x', { agentId: '' }))).rejects.toBeInstanceOf(StoreKeyError);
    });
  });

  describe('#delete / #list', () => {
    it('deletes and says whether something was there', async () => {
      await store.set(key('d'), { a: 1 });
      await expect(store.delete(key('d'))).resolves.toBe(true);
      await expect(store.delete(key('d'))).resolves.toBe(false);
      await expect(store.get(key('d'))).resolves.toBeUndefined();
    });

    it('lists the keys under a prefix in a stable order', async () => {
      await store.set(key('b'), 1);
      await store.set(key('a'), 1);
      await store.set(key('c', { kind: 'summary' }), 1);
      await store.set(key('z', { sessionId: 's2' }), 1);
      await store.set(key('other', { agentId: 'agent-b' }), 1);
      expect(await store.list({ agentId: 'agent-a', sessionId: 's1', kind: 'state' })).toEqual([key('a'), key('b')]);
      expect((await store.list({ agentId: 'agent-a', sessionId: 's1' })).map((k) => k.name)).toEqual(['a', 'b', 'c']);
      expect((await store.list({ agentId: 'agent-a' })).map((k) => k.name)).toEqual(['a', 'b', 'c', 'z']);
      expect(await store.list({ agentId: 'nobody' })).toEqual([]);
    });
  });

  describe('#putBlob / #readBlob', () => {
    it('stores strings as UTF-8 and streams them back in chunks', async () => {
      const text = 'line 1\n日本語 😀\n';
      const { byteSize } = await store.putBlob(key('out', { kind: 'tool-output' }), text);
      expect(byteSize).toBe(Buffer.byteLength(text));
      const chunks: Uint8Array[] = [];
      for await (const chunk of store.readBlob(key('out', { kind: 'tool-output' }))) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(1);
      expect(Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8')).toBe(text);
      await expect(store.blobSize(key('out', { kind: 'tool-output' }))).resolves.toBe(byteSize);
    });

    it('honours byte ranges with an exclusive end, clamped to the size', async () => {
      await store.putBlob(key('r'), '0123456789');
      await expect(readAll(store.readBlob(key('r'), { start: 2, end: 5 }))).resolves.toBe('234');
      await expect(readAll(store.readBlob(key('r'), { start: 7 }))).resolves.toBe('789');
      await expect(readAll(store.readBlob(key('r'), { end: 3 }))).resolves.toBe('012');
      await expect(readAll(store.readBlob(key('r'), { start: 8, end: 100 }))).resolves.toBe('89');
      await expect(readAll(store.readBlob(key('r'), { start: 20 }))).resolves.toBe('');
    });

    it('rejects a negative range with StoreError', async () => {
      await store.putBlob(key('r'), 'abc');
      await expect(readAll(store.readBlob(key('r'), { start: -1 }))).rejects.toBeInstanceOf(StoreError);
    });

    it('throws StoreError when reading a blob that does not exist', async () => {
      await expect(readAll(store.readBlob(key('nothing')))).rejects.toMatchObject({ code: 'CTXKIT_STORE_ERROR' });
      await expect(store.blobSize(key('nothing'))).resolves.toBeUndefined();
    });

    it('copies the bytes it is given', async () => {
      const bytes = new Uint8Array([1, 2, 3]);
      await store.putBlob(key('bin'), bytes);
      bytes[0] = 9;
      const chunks: number[] = [];
      for await (const chunk of store.readBlob(key('bin'))) chunks.push(...chunk);
      expect(chunks).toEqual([1, 2, 3]);
    });

    it('replaces an existing blob', async () => {
      await store.putBlob(key('p'), 'first version');
      await store.putBlob(key('p'), 'second');
      await expect(readAll(store.readBlob(key('p')))).resolves.toBe('second');
    });
  });

  describe('#appendBlob', () => {
    it('creates the blob when absent and appends after', async () => {
      const transcript = key('t', { kind: 'transcript' });
      await expect(store.appendBlob(transcript, '{"a":1}\n')).resolves.toEqual({ byteSize: 8 });
      await expect(store.appendBlob(transcript, '{"b":2}\n')).resolves.toEqual({ byteSize: 16 });
      await expect(readAll(store.readBlob(transcript))).resolves.toBe('{"a":1}\n{"b":2}\n');
      await expect(readAll(store.readBlob(transcript, { start: 9, end: 14 }))).resolves.toBe('"b":2');
    });
  });

  describe('#deleteBlob / #listBlobs', () => {
    it('lists blobs apart from values, and deletes them', async () => {
      await store.set(key('same-name'), 1);
      await store.putBlob(key('same-name'), 'bytes');
      await store.putBlob(key('other', { sessionId: 's2' }), 'bytes');
      expect(await store.listBlobs({ agentId: 'agent-a', sessionId: 's1' })).toEqual([key('same-name')]);
      expect((await store.listBlobs({ agentId: 'agent-a' })).map((k) => k.sessionId)).toEqual(['s1', 's2']);
      await expect(store.deleteBlob(key('same-name'))).resolves.toBe(true);
      await expect(store.deleteBlob(key('same-name'))).resolves.toBe(false);
      await expect(store.get(key('same-name'))).resolves.toBe(1);
    });
  });
});
