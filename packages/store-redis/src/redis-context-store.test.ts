import { createHash } from 'node:crypto';

import { ErrorCodes, type StoreKey } from '@ctxkit/core';
import { storeFailureOf } from '@ctxkit/core/testing';
import { Redis } from 'ioredis';

import { type RedisServerProcess, startRedisServer } from './__tests__/redis-server';
import { RedisContextStore } from './redis-context-store';

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

describe('RedisContextStore', () => {
  let server: RedisServerProcess;
  let raw: Redis;
  const stores: RedisContextStore[] = [];
  const open = (options: ConstructorParameters<typeof RedisContextStore>[0] = {}) => {
    const store = new RedisContextStore({ url: server.url, ...options });
    stores.push(store);
    return store;
  };
  const key = (overrides: Partial<StoreKey> = {}): StoreKey => ({
    agentId: 'support-bot',
    sessionId: 'conversation-42',
    kind: 'summary',
    name: 'buffer',
    ...overrides,
  });

  beforeAll(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url);
  });

  afterEach(async () => {
    while (stores.length) await stores.pop()?.close();
    await raw.flushdb();
  });

  afterAll(async () => {
    raw?.disconnect();
    await server?.stop();
  });

  describe('key layout', () => {
    it('writes values at ctxkit:{agentId}:{sessionId}:{kind}:{name} as JSON', async () => {
      await open().set(key(), { summary: 'The user wants to fly to Tokyo.' });
      await expect(raw.get('ctxkit:support-bot:conversation-42:summary:buffer')).resolves.toBe(
        JSON.stringify({ summary: 'The user wants to fly to Tokyo.' }),
      );
    });

    it('writes blobs beside values with a :blob suffix, as raw bytes', async () => {
      await open().putBlob(key({ kind: 'tool-output', name: 'call_1' }), 'line 1\nline 2\n');
      await expect(raw.get('ctxkit:support-bot:conversation-42:tool-output:call_1:blob')).resolves.toBe(
        'line 1\nline 2\n',
      );
    });

    it('uses the configured prefix and writes ":" inside a part as %3A', async () => {
      await open({ keyPrefix: 'tenant-7:ctx' }).set(key({ agentId: 'team:support' }), 1);
      await expect(raw.keys('*')).resolves.toEqual(['tenant-7:ctx:team%3Asupport:conversation-42:summary:buffer']);
    });

    it('ignores foreign keys under the prefix when listing', async () => {
      await raw.set('ctxkit:support-bot:conversation-42:summary', 'too few segments');
      await raw.set('ctxkit:support-bot:conversation-42:not-a-kind:x', 'unknown kind');
      await open().set(key(), 1);
      await expect(open().list({ agentId: 'support-bot' })).resolves.toEqual([key()]);
    });

    it('rejects a prefix with glob characters with StoreKeyError', () => {
      for (const prefix of ['ctx*', 'a?b', '', 'trailing:']) {
        expect(() => new RedisContextStore({ url: server.url, keyPrefix: prefix })).toThrow(
          expect.objectContaining({ code: ErrorCodes.STORE_KEY_INVALID }),
        );
      }
    });
  });

  describe('#constructor', () => {
    it('connects to REDIS_URL when no url or client is given', async () => {
      const previous = process.env.REDIS_URL;
      process.env.REDIS_URL = server.url;
      try {
        const store = new RedisContextStore();
        stores.push(store);
        await store.set(key(), 'via REDIS_URL');
        await expect(raw.get('ctxkit:support-bot:conversation-42:summary:buffer')).resolves.toBe('"via REDIS_URL"');
      } finally {
        if (previous === undefined) delete process.env.REDIS_URL;
        else process.env.REDIS_URL = previous;
      }
    });

    it('uses a given ioredis client and leaves it open on close', async () => {
      const client = new Redis(server.url);
      try {
        const store = new RedisContextStore({ client });
        await store.set(key(), 'shared client');
        await store.close();
        await expect(client.get('ctxkit:support-bot:conversation-42:summary:buffer')).resolves.toBe('"shared client"');
      } finally {
        client.disconnect();
      }
    });
  });

  describe('two processes on one server', () => {
    it('share values, blobs and listings', async () => {
      const first = open();
      const second = open();
      await first.set(key(), { version: 1 });
      await expect(second.get(key())).resolves.toEqual({ version: 1 });
      await second.set(key(), { version: 2 });
      await expect(first.get(key())).resolves.toEqual({ version: 2 });
      await first.putBlob(key({ kind: 'tool-output', name: 'out' }), 'from the first');
      await expect(readAll(second.readBlob(key({ kind: 'tool-output', name: 'out' })))).resolves.toBe('from the first');
      await expect(second.listBlobs({ agentId: 'support-bot' })).resolves.toEqual([
        key({ kind: 'tool-output', name: 'out' }),
      ]);
      const clients = (await raw.client('LIST')) as string;
      expect(clients.split('\n').filter((line) => line.includes('name=ctxkit-store')).length).toBe(2);
    });

    it('append to one transcript concurrently without losing or interleaving lines', async () => {
      const first = open();
      const second = open();
      const transcript = key({ kind: 'transcript', name: 'transcript.jsonl' });
      const line = (writer: string, index: number) =>
        `${JSON.stringify({ writer, index, text: 'x'.repeat(200 + index) })}\n`;
      await Promise.all([
        ...Array.from({ length: 50 }, (_, index) => first.appendBlob(transcript, line('first', index))),
        ...Array.from({ length: 50 }, (_, index) => second.appendBlob(transcript, line('second', index))),
      ]);
      const lines = (await readAll(first.readBlob(transcript))).split('\n').filter(Boolean);
      expect(lines).toHaveLength(100);
      const parsed = lines.map((text) => JSON.parse(text) as { writer: string; index: number });
      expect(parsed.filter((entry) => entry.writer === 'first').map((entry) => entry.index)).toEqual([
        ...Array(50).keys(),
      ]);
      expect(parsed.filter((entry) => entry.writer === 'second').map((entry) => entry.index)).toEqual([
        ...Array(50).keys(),
      ]);
    });

    it('let exactly one of two connections win a compare-and-set, and lose no update when both retry', async () => {
      const first = open();
      const second = open();
      const base = await first.setIfVersion(key(), { count: 0 }, undefined);
      if (!base.ok) throw new Error('create failed');
      const [a, b] = await Promise.all([
        first.setIfVersion(key(), { count: 1, by: 'first' }, base.version),
        second.setIfVersion(key(), { count: 1, by: 'second' }, base.version),
      ]);
      expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
      const loser = a.ok ? b : a;
      expect(loser.ok).toBe(false);
      if (!loser.ok) expect(loser.current).toEqual(await second.getVersioned(key()));

      const increment = async (store: RedisContextStore) => {
        for (;;) {
          const current = await store.getVersioned<{ count: number }>(key());
          if ((await store.setIfVersion(key(), { count: current!.value.count + 1 }, current!.version)).ok) return;
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, index) => increment(index % 2 === 0 ? first : second)));
      await expect(first.get(key())).resolves.toMatchObject({ count: 41 });
    });
  });

  describe('#getVersioned / #setIfVersion', () => {
    it('keeps one key per value: the version is the SHA-1 of the stored JSON text', async () => {
      const store = open();
      const written = await store.setIfVersion(key(), { text: 'v1' }, undefined);
      const text = JSON.stringify({ text: 'v1' });
      expect(written).toEqual({ ok: true, version: createHash('sha1').update(text).digest('hex') });
      await expect(raw.keys('*')).resolves.toEqual(['ctxkit:support-bot:conversation-42:summary:buffer']);
      await expect(raw.get('ctxkit:support-bot:conversation-42:summary:buffer')).resolves.toBe(text);
    });

    it('sees writes made by set, writeAtomically and other clients as new versions', async () => {
      const store = open();
      await raw.set('ctxkit:support-bot:conversation-42:summary:buffer', JSON.stringify({ from: 'another client' }));
      const read = await store.getVersioned(key());
      expect(read?.value).toEqual({ from: 'another client' });
      await store.writeAtomically([{ op: 'set', key: key(), value: { from: 'a batch' } }]);
      await expect(store.setIfVersion(key(), { from: 'stale' }, read!.version)).resolves.toMatchObject({
        ok: false,
        current: { value: { from: 'a batch' } },
      });
    });

    it('expires a value written by setIfVersion after ttlSeconds', async () => {
      const store = open({ ttlSeconds: 600 });
      await store.setIfVersion(key(), 1, undefined);
      const ttl = await raw.pttl('ctxkit:support-bot:conversation-42:summary:buffer');
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
    });

    it('fails with StoreError when the stored text is not JSON', async () => {
      await raw.set('ctxkit:support-bot:conversation-42:summary:buffer', '{broken');
      expect((await storeFailureOf(() => open().getVersioned(key()))).code).toBe(ErrorCodes.STORE_ERROR);
    });
  });

  describe('#writeAtomically', () => {
    it('applies sets, deletes and blob writes together and returns blob sizes', async () => {
      const store = open();
      await store.set(key({ name: 'old' }), 'old');
      await store.putBlob(key({ kind: 'transcript', name: 't' }), 'first line\n');
      const sizes = await store.writeAtomically([
        { op: 'set', key: key({ kind: 'summary', name: 'buffer' }), value: { text: 'summary v2' } },
        { op: 'set', key: key({ kind: 'state', name: 'summarized-through' }), value: 17 },
        { op: 'delete', key: key({ name: 'old' }) },
        { op: 'appendBlob', key: key({ kind: 'transcript', name: 't' }), data: 'second line\n' },
        { op: 'putBlob', key: key({ kind: 'tool-output', name: 'o' }), data: 'output' },
      ]);
      expect(sizes).toEqual([undefined, undefined, undefined, 23, 6]);
      await expect(store.get(key())).resolves.toEqual({ text: 'summary v2' });
      await expect(store.get(key({ kind: 'state', name: 'summarized-through' }))).resolves.toBe(17);
      await expect(store.get(key({ name: 'old' }))).resolves.toBeUndefined();
      await expect(readAll(store.readBlob(key({ kind: 'transcript', name: 't' })))).resolves.toBe(
        'first line\nsecond line\n',
      );
    });

    it('validates every key and value before sending anything', async () => {
      const store = open();
      const invalidKey = await storeFailureOf(() =>
        store.writeAtomically([
          { op: 'set', key: key({ name: 'first' }), value: 1 },
          { op: 'set', key: key({ name: '' }), value: 2 },
        ]),
      );
      expect(invalidKey.code).toBe(ErrorCodes.STORE_KEY_INVALID);
      const notJson = await storeFailureOf(() =>
        store.writeAtomically([
          { op: 'set', key: key({ name: 'first' }), value: 1 },
          { op: 'set', key: key({ name: 'second' }), value: { big: 10n } },
        ]),
      );
      expect(notJson.code).toBe(ErrorCodes.STORE_ERROR);
      await expect(raw.dbsize()).resolves.toBe(0);
    });

    it('returns an empty list for an empty batch', async () => {
      await expect(open().writeAtomically([])).resolves.toEqual([]);
    });
  });

  describe('ttlSeconds', () => {
    it('leaves keys without expiry by default', async () => {
      const store = open();
      await store.set(key(), 1);
      await store.appendBlob(key({ kind: 'transcript', name: 't' }), 'x');
      await expect(raw.pttl('ctxkit:support-bot:conversation-42:summary:buffer')).resolves.toBe(-1);
      await expect(raw.pttl('ctxkit:support-bot:conversation-42:transcript:t:blob')).resolves.toBe(-1);
    });

    it('expires values and blobs after their last write, including appends and batches', async () => {
      const store = open({ ttlSeconds: 600 });
      await store.set(key(), 1);
      await store.putBlob(key({ kind: 'tool-output', name: 'o' }), 'out');
      await expect(store.appendBlob(key({ kind: 'transcript', name: 't' }), 'abc')).resolves.toEqual({ byteSize: 3 });
      await expect(
        store.writeAtomically([
          { op: 'appendBlob', key: key({ kind: 'transcript', name: 't' }), data: 'de' },
          { op: 'set', key: key({ name: 'in-batch' }), value: 2 },
          { op: 'appendBlob', key: key({ kind: 'transcript', name: 'u' }), data: 'xyz' },
        ]),
      ).resolves.toEqual([5, undefined, 3]);
      for (const redisKey of await raw.keys('ctxkit:*')) {
        const ttl = await raw.pttl(redisKey);
        expect(ttl).toBeGreaterThan(590_000);
        expect(ttl).toBeLessThanOrEqual(600_000);
      }
      await expect(raw.keys('ctxkit:*')).resolves.toHaveLength(5);
    });

    it('rejects a ttl that is not a positive integer with StoreError', () => {
      for (const ttlSeconds of [0, -5, 1.5]) {
        expect(() => new RedisContextStore({ url: server.url, ttlSeconds })).toThrow(
          expect.objectContaining({ code: ErrorCodes.STORE_ERROR }),
        );
      }
    });
  });

  describe('#set', () => {
    it('rejects undefined and values that are not JSON with StoreError', async () => {
      const store = open();
      for (const value of [undefined, () => 1, { big: 1n }]) {
        const error = await storeFailureOf(() => store.set(key(), value));
        expect(error.code).toBe(ErrorCodes.STORE_ERROR);
      }
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(store.set(key(), cyclic)).rejects.toMatchObject({ code: ErrorCodes.STORE_ERROR });
      await expect(raw.dbsize()).resolves.toBe(0);
    });
  });

  describe('#get', () => {
    it('fails with StoreError when the stored text is not JSON', async () => {
      await raw.set('ctxkit:support-bot:conversation-42:summary:buffer', '{not json');
      await expect(open().get(key())).rejects.toMatchObject({ code: ErrorCodes.STORE_ERROR });
    });
  });

  describe('#readBlob', () => {
    it('reads a range with GETRANGE without fetching the rest of the blob', async () => {
      const store = open({ chunkSize: 1024 });
      const blob = key({ kind: 'tool-output', name: 'big' });
      await store.putBlob(blob, 'a'.repeat(1_000_000) + 'NEEDLE' + 'b'.repeat(1_000_000));
      const commands: string[] = [];
      const feed = await raw.monitor();
      try {
        feed.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
        await expect(readAll(store.readBlob(blob, { start: 1_000_000, end: 1_000_006 }))).resolves.toBe('NEEDLE');
        // MONITOR lines arrive asynchronously: wait until the read's own commands have been echoed.
        await store.blobSize(key({ name: 'sentinel' }));
        for (let i = 0; i < 100 && !commands.some((c) => c.includes('sentinel')); i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        feed.disconnect();
      }
      const reads = commands.filter((command) => /^getrange /i.test(command));
      expect(reads).toEqual(['getrange ctxkit:support-bot:conversation-42:tool-output:big:blob 1000000 1000005']);
      expect(commands.some((command) => /^get /i.test(command))).toBe(false);
    });

    it('ends a read at the size the blob had when it started, while another process appends', async () => {
      const store = open({ chunkSize: 4 });
      const transcript = key({ kind: 'transcript', name: 'growing' });
      await store.putBlob(transcript, 'line-1\nline-2\n');
      const iterator = store.readBlob(transcript)[Symbol.asyncIterator]();
      const parts: string[] = [];
      let step = await iterator.next();
      await open().appendBlob(transcript, 'line-3\n');
      while (!step.done) {
        parts.push(Buffer.from(step.value).toString('utf8'));
        step = await iterator.next();
      }
      expect(parts.join('')).toBe('line-1\nline-2\n');
      await expect(store.blobSize(transcript)).resolves.toBe(21);
    });

    it('fails with StoreError when the blob is deleted while it is read', async () => {
      const store = open({ chunkSize: 4 });
      const blob = key({ kind: 'tool-output', name: 'vanishing' });
      await store.putBlob(blob, '0123456789abcdef');
      const iterator = store.readBlob(blob)[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(Buffer.from(first.value as Uint8Array).toString()).toBe('0123');
      await open().deleteBlob(blob);
      await expect(iterator.next()).rejects.toMatchObject({ code: ErrorCodes.STORE_ERROR });
    });
  });

  describe('#close', () => {
    it('makes later calls fail with StoreError', async () => {
      const store = open();
      await store.set(key(), 1);
      await store.close();
      await expect(store.get(key())).rejects.toMatchObject({
        code: ErrorCodes.STORE_ERROR,
        details: expect.objectContaining({ problem: 'the store is closed' }),
      });
    });
  });
});
