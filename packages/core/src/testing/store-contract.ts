import { createHash, randomBytes } from 'node:crypto';

import type { IContextStore, StoreKey, StoreKeyPrefix, StoreKind } from '../contracts/context-store';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import { supportsCompareAndSet, type VersionedContextStore } from '../stores/versioned-store-access';
import { opaqueItemMessages } from './opaque-item-messages';
import { storeFailureOf } from './store-failure-of';

/** Options of {@link runStoreContract}. */
export interface StoreContractOptions {
  /**
   * Size of the generated blob that must come back byte-exact through the stream.
   * @default 20 MiB (20 * 1024 * 1024 bytes)
   */
  largeBlobBytes?: number;
  /**
   * Whether the store offers compare-and-set. `true`: it must have `getVersioned` and `setIfVersion`
   * and pass their cases (create-if-absent, stale versions refused, exactly one of concurrent writers
   * wins, no lost update under retries). `false`: it must have neither (strategies then fall back to
   * `get`/`set`).
   * @default true
   */
  compareAndSet?: boolean;
}

/** The large blob size the contract uses unless told otherwise: 20 MiB. */
const STORE_CONTRACT_LARGE_BLOB_BYTES = 20 * 1024 * 1024;

/** Key parts every store must reject with `StoreKeyError`: empty, or a stored form longer than 200 characters. */
const INVALID_STORE_KEY_PARTS: readonly string[] = ['', 'x'.repeat(201), '日'.repeat(34)];

/**
 * Key parts every store must accept, keep apart and list back as they were: paths and traversal
 * attempts, separators, URLs, e-mail addresses, escapes, Unicode and a lone surrogate.
 */
const HOSTILE_STORE_KEY_PARTS: readonly string[] = [
  'tenant/conv-1',
  '../x',
  'a\\b',
  '..',
  '.',
  '.hidden',
  'a..b',
  'user@example.com',
  'https://example.test/a?b=c#d',
  'a:b',
  '100%',
  '%2E',
  '%u0041',
  'A',
  '会話-1 🎉',
  '\ud800',
  'x'.repeat(200),
];

/** Reads a whole blob stream into one buffer, and counts its chunks. */
async function collectBlob(chunks: AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; chunkCount: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('readBlob yielded something other than a Uint8Array');
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return { bytes: Buffer.concat(parts), chunkCount: parts.length };
}

/** Deterministic pseudo-random bytes (xorshift32), so a failing run can be reproduced. */
function generatedBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    if (i + 4 <= size) out.writeUInt32LE(state, i);
    else for (let j = i; j < size; j += 1) out[j] = (state >>> ((j - i) * 8)) & 0xff;
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function sortKeys(keys: readonly StoreKey[]): string[] {
  return keys.map((k) => `${k.agentId}|${k.sessionId}|${k.kind}|${k.name}`).sort();
}

/**
 * Registers a jest suite that any {@link IContextStore} must pass: JSON values round-trip and are
 * cloned in and out; keys isolate agents, sessions and kinds; `list` by prefix; blobs (put, append,
 * size, ranged streamed reads, a large blob byte-exact, delete); any non-empty key part (paths,
 * URLs, Unicode) stored apart and listed back; invalid key parts (empty, too long) rejected with
 * `StoreKeyError` (`CTXKIT_STORE_KEY_INVALID`); a missing blob read fails with `StoreError`
 * (`CTXKIT_STORE_ERROR`); compare-and-set (`getVersioned`, `setIfVersion`) unless
 * `options.compareAndSet` is `false`.
 *
 * Call it at the top level of a test file. Each test gets a fresh store from `createStore` and uses its
 * own random agent id, so stores that share a backend (a Redis server, a directory) do not see each
 * other's data. After each test the store is closed (`close()` when it has one), then `cleanup` runs.
 *
 * @param name shown in the suite title, e.g. `'MemoryContextStore'`.
 * @param createStore returns a ready store.
 * @param cleanup optional, e.g. removes a temporary directory.
 * @see docs/09-stores.md
 */
export function runStoreContract(
  name: string,
  createStore: () => Promise<IContextStore>,
  cleanup?: (store: IContextStore) => Promise<void> | void,
  options: StoreContractOptions = {},
): void {
  const largeBlobBytes = options.largeBlobBytes ?? STORE_CONTRACT_LARGE_BLOB_BYTES;
  const compareAndSet = options.compareAndSet ?? true;

  describe(`${name} (IContextStore contract)`, () => {
    let store: IContextStore;
    let created: IContextStore | undefined;
    let agentId: string;
    const key = (overrides: Partial<StoreKey> = {}): StoreKey => ({
      agentId,
      sessionId: 'session-1',
      kind: 'state',
      name: 'value',
      ...overrides,
    });

    beforeEach(async () => {
      created = undefined;
      store = await createStore();
      created = store;
      agentId = `contract-${randomBytes(6).toString('hex')}`;
    });

    afterEach(async () => {
      if (created === undefined) return;
      if (created.close) await created.close();
      if (cleanup) await cleanup(created);
    });

    describe('#get / #set', () => {
      it('returns undefined for a key that was never set', async () => {
        await expect(store.get(key({ name: 'missing' }))).resolves.toBeUndefined();
      });

      it('round-trips JSON values of every type', async () => {
        const values: unknown[] = [
          { destination: 'Tokyo', date: '2025-04-01', seats: 2, confirmed: true, notes: null },
          [1, 'two', { three: [3] }],
          'plain string with ünïcödé and 日本語 and an emoji 🎉',
          42.5,
          0,
          false,
          null,
          { deep: { deeper: { deepest: ['x'] } } },
        ];
        for (const [index, value] of values.entries()) {
          await store.set(key({ name: `v${index}` }), value);
        }
        for (const [index, value] of values.entries()) {
          await expect(store.get(key({ name: `v${index}` }))).resolves.toEqual(value);
        }
      });

      it(
        'keeps opaque provider items (thinking, redacted thinking, compaction, encrypted reasoning) byte for ' + 'byte',
        async () => {
          const messages = opaqueItemMessages();
          await store.set(key({ kind: 'transcript', name: 'opaque' }), messages);
          const got = (await store.get(key({ kind: 'transcript', name: 'opaque' }))) as typeof messages;
          expect(got).toStrictEqual(messages);
          const items = (list: typeof messages) =>
            list.flatMap((message) => (message.role === 'assistant' ? (message.reasoning ?? []) : []));
          // Key order may differ in a store that keeps JSON as a document; every item's fields and order may not.
          const sorted = (value: unknown): unknown =>
            Array.isArray(value)
              ? value.map(sorted)
              : value !== null && typeof value === 'object'
                ? Object.fromEntries(
                    Object.entries(value)
                      .sort(([a], [b]) => (a < b ? -1 : 1))
                      .map(([k, v]) => [k, sorted(v)]),
                  )
                : value;
          expect(items(got).map((item) => JSON.stringify(sorted(item)))).toEqual(
            items(messages).map((item) => JSON.stringify(sorted(item))),
          );
        },
      );

      it('clones values in: changing the object after set does not change the stored value', async () => {
        const value = { list: [1, 2], nested: { a: 'a' } };
        await store.set(key(), value);
        value.list.push(3);
        value.nested.a = 'changed';
        await expect(store.get(key())).resolves.toEqual({ list: [1, 2], nested: { a: 'a' } });
      });

      it('clones values out: changing a returned object does not change the stored value', async () => {
        await store.set(key(), { list: [1, 2], nested: { a: 'a' } });
        const first = await store.get<{ list: number[]; nested: { a: string } }>(key());
        first?.list.push(99);
        if (first) first.nested.a = 'changed';
        await expect(store.get(key())).resolves.toEqual({ list: [1, 2], nested: { a: 'a' } });
      });

      it('replaces an existing value', async () => {
        await store.set(key(), { version: 1 });
        await store.set(key(), { version: 2 });
        await expect(store.get(key())).resolves.toEqual({ version: 2 });
      });

      it('isolates agents, sessions, kinds and names', async () => {
        const otherAgent = `${agentId}-other`;
        await store.set(key(), 'mine');
        await store.set(key({ agentId: otherAgent }), 'other agent');
        await store.set(key({ sessionId: 'session-2' }), 'other session');
        await store.set(key({ kind: 'summary' }), 'other kind');
        await store.set(key({ name: 'value-2' }), 'other name');
        await expect(store.get(key())).resolves.toBe('mine');
        await expect(store.get(key({ agentId: otherAgent }))).resolves.toBe('other agent');
        await expect(store.get(key({ sessionId: 'session-2' }))).resolves.toBe('other session');
        await expect(store.get(key({ kind: 'summary' }))).resolves.toBe('other kind');
        await expect(store.get(key({ name: 'value-2' }))).resolves.toBe('other name');
        await expect(store.get(key({ kind: 'entities' }))).resolves.toBeUndefined();
        await store.delete(key({ agentId: otherAgent }));
      });

      it(
        'keeps parts that contain ":" apart (agent "a:b" + session "c" is not agent "a" + session ' + '"b:c")',
        async () => {
          await store.set(key({ agentId: `${agentId}:x`, sessionId: 'y' }), 'first');
          await store.set(key({ agentId, sessionId: 'x:y' }), 'second');
          await expect(store.get(key({ agentId: `${agentId}:x`, sessionId: 'y' }))).resolves.toBe('first');
          await expect(store.get(key({ agentId, sessionId: 'x:y' }))).resolves.toBe('second');
          expect(sortKeys(await store.list({ agentId }))).toEqual(sortKeys([key({ sessionId: 'x:y' })]));
          await store.delete(key({ agentId: `${agentId}:x`, sessionId: 'y' }));
        },
      );
    });

    describe('concurrent writes', () => {
      it('keeps every value when many sets to different keys run at once', async () => {
        const keys = Array.from({ length: 30 }, (_, index) => key({ name: `parallel-${index}` }));
        await Promise.all(keys.map((k, index) => store.set(k, { index })));
        expect(sortKeys(await store.list({ agentId }))).toEqual(sortKeys(keys));
        for (const [index, k] of keys.entries()) await expect(store.get(k)).resolves.toEqual({ index });
      });
    });

    if (compareAndSet) {
      describe('#getVersioned / #setIfVersion (compare-and-set)', () => {
        let versioned: VersionedContextStore;
        beforeEach(() => {
          if (!supportsCompareAndSet(store)) {
            throw new Error(
              `${name} has no getVersioned/setIfVersion: implement both, or pass { compareAndSet: false } to ` +
                `runStoreContract`,
            );
          }
          versioned = store;
        });

        it('reads undefined for an absent key', async () => {
          await expect(versioned.getVersioned(key({ name: 'absent' }))).resolves.toBeUndefined();
        });

        it(
          'creates only when absent (expected version undefined), and the version read is the one ' + 'written',
          async () => {
            const created = await versioned.setIfVersion(key(), { step: 1 }, undefined);
            expect(created).toEqual({ ok: true, version: expect.any(String) });
            const read = await versioned.getVersioned(key());
            expect(read).toEqual({ value: { step: 1 }, version: created.ok ? created.version : '' });
            const again = await versioned.setIfVersion(key(), { step: 'second create' }, undefined);
            expect(again).toEqual({ ok: false, current: read });
            await expect(store.get(key())).resolves.toEqual({ step: 1 });
          },
        );

        it('writes at the expected version and gives the value a new version', async () => {
          const first = await versioned.setIfVersion(key(), { step: 1 }, undefined);
          if (!first.ok) throw new Error('create failed');
          const second = await versioned.setIfVersion(key(), { step: 2 }, first.version);
          expect(second.ok).toBe(true);
          if (!second.ok) return;
          expect(second.version).not.toBe(first.version);
          await expect(versioned.getVersioned(key())).resolves.toEqual({ value: { step: 2 }, version: second.version });
          await expect(store.get(key())).resolves.toEqual({ step: 2 });
        });

        it('refuses a stale version after another setIfVersion, a set or a delete, and writes nothing', async () => {
          const first = await versioned.setIfVersion(key(), { step: 1 }, undefined);
          if (!first.ok) throw new Error('create failed');
          const second = await versioned.setIfVersion(key(), { step: 2 }, first.version);
          if (!second.ok) throw new Error('second write failed');
          const stale = await versioned.setIfVersion(key(), { step: 'stale' }, first.version);
          expect(stale).toEqual({ ok: false, current: { value: { step: 2 }, version: second.version } });

          await store.set(key(), { step: 3 });
          const afterSet = await versioned.getVersioned(key());
          expect(afterSet?.value).toEqual({ step: 3 });
          expect(afterSet?.version).not.toBe(second.version);
          await expect(versioned.setIfVersion(key(), { step: 'stale' }, second.version)).resolves.toEqual({
            ok: false,
            current: afterSet,
          });

          await store.delete(key());
          await expect(versioned.setIfVersion(key(), { step: 'stale' }, afterSet!.version)).resolves.toEqual({
            ok: false,
            current: undefined,
          });
          await expect(store.get(key())).resolves.toBeUndefined();
        });

        it('clones values in and out, and keeps keys apart', async () => {
          const value = { list: [1, 2] };
          const written = await versioned.setIfVersion(key(), value, undefined);
          value.list.push(3);
          const read = await versioned.getVersioned<{ list: number[] }>(key());
          expect(read?.value).toEqual({ list: [1, 2] });
          read?.value.list.push(4);
          await expect(store.get(key())).resolves.toEqual({ list: [1, 2] });
          await expect(versioned.getVersioned(key({ name: 'other' }))).resolves.toBeUndefined();
          await expect(versioned.getVersioned(key({ sessionId: 'session-2' }))).resolves.toBeUndefined();
          expect(written.ok).toBe(true);
          expect(sortKeys(await store.list({ agentId }))).toEqual(sortKeys([key()]));
        });

        it('lets exactly one of many concurrent writers expecting the same version win', async () => {
          const base = await versioned.setIfVersion(key(), { writer: 'none' }, undefined);
          if (!base.ok) throw new Error('create failed');
          const writers = Array.from({ length: 12 }, (_, index) => `writer-${index}`);
          const results = await Promise.all(
            writers.map((writer) => versioned.setIfVersion(key(), { writer }, base.version)),
          );
          const winners = writers.filter((_, index) => results[index]!.ok);
          expect(winners).toHaveLength(1);
          await expect(store.get(key())).resolves.toEqual({ writer: winners[0] });
          for (const result of results) if (!result.ok) expect(result.current?.value).toEqual({ writer: winners[0] });
        });

        it('lets exactly one of many concurrent creators win', async () => {
          const results = await Promise.all(
            Array.from({ length: 12 }, (_, index) =>
              versioned.setIfVersion(key({ name: 'created' }), { creator: index }, undefined),
            ),
          );
          expect(results.filter((result) => result.ok)).toHaveLength(1);
        });

        it('loses no update when concurrent read-modify-write loops retry on refusal', async () => {
          const counterKey = key({ name: 'counter' });
          const increment = async (): Promise<number> => {
            for (let attempt = 1; ; attempt++) {
              const current = await versioned.getVersioned<{ count: number }>(counterKey);
              const result = await versioned.setIfVersion(
                counterKey,
                { count: (current?.value.count ?? 0) + 1 },
                current?.version,
              );
              if (result.ok) return attempt;
              if (attempt > 200) throw new Error('no progress after 200 attempts');
            }
          };
          const attempts = await Promise.all(Array.from({ length: 15 }, increment));
          await expect(store.get(counterKey)).resolves.toEqual({ count: 15 });
          // The loops really raced: some write was refused and retried.
          expect(Math.max(...attempts)).toBeGreaterThan(1);
        });

        it('validates keys and values like set', async () => {
          const bad = key({ name: '' });
          for (const call of [() => versioned.getVersioned(bad), () => versioned.setIfVersion(bad, 1, undefined)]) {
            expect((await storeFailureOf(call)).code).toBe(ErrorCodes.STORE_KEY_INVALID);
          }
          expect((await storeFailureOf(() => versioned.setIfVersion(key(), undefined, undefined))).code).toBe(
            ErrorCodes.STORE_ERROR,
          );
          await expect(store.get(key())).resolves.toBeUndefined();
        });
      });
    } else {
      describe('without compare-and-set', () => {
        it('has neither getVersioned nor setIfVersion (strategies fall back to get and set)', () => {
          expect(store.getVersioned).toBeUndefined();
          expect(store.setIfVersion).toBeUndefined();
        });
      });
    }

    describe('#delete', () => {
      it('removes a value and reports whether it existed', async () => {
        await store.set(key(), { a: 1 });
        await expect(store.delete(key())).resolves.toBe(true);
        await expect(store.get(key())).resolves.toBeUndefined();
        await expect(store.delete(key())).resolves.toBe(false);
      });
    });

    describe('#list', () => {
      it('lists the keys under an agent, a session, or a session and kind', async () => {
        const kinds: StoreKind[] = ['summary', 'entities', 'state'];
        const written: StoreKey[] = [];
        for (const sessionId of ['s1', 's2']) {
          for (const kind of kinds) {
            for (const name of ['a', 'b']) {
              const k = key({ sessionId, kind, name });
              written.push(k);
              await store.set(k, { sessionId, kind, name });
            }
          }
        }
        const byPrefix = async (prefix: StoreKeyPrefix) => sortKeys(await store.list(prefix));
        expect(await byPrefix({ agentId })).toEqual(sortKeys(written));
        expect(await byPrefix({ agentId, sessionId: 's1' })).toEqual(
          sortKeys(written.filter((k) => k.sessionId === 's1')),
        );
        expect(await byPrefix({ agentId, sessionId: 's2', kind: 'entities' })).toEqual(
          sortKeys(written.filter((k) => k.sessionId === 's2' && k.kind === 'entities')),
        );
        expect(await byPrefix({ agentId, sessionId: 's3' })).toEqual([]);
      });

      it('does not treat a prefix of an id as a match ("agent-1" does not list "agent-10")', async () => {
        await store.set(key({ agentId: `${agentId}-1` }), 1);
        await store.set(key({ agentId: `${agentId}-10` }), 10);
        await store.set(key({ agentId: `${agentId}-1`, sessionId: 'session-10' }), 'ten');
        expect(sortKeys(await store.list({ agentId: `${agentId}-1` }))).toEqual(
          sortKeys([key({ agentId: `${agentId}-1` }), key({ agentId: `${agentId}-1`, sessionId: 'session-10' })]),
        );
        expect(sortKeys(await store.list({ agentId: `${agentId}-1`, sessionId: 'session-1' }))).toEqual(
          sortKeys([key({ agentId: `${agentId}-1` })]),
        );
        await store.delete(key({ agentId: `${agentId}-1` }));
        await store.delete(key({ agentId: `${agentId}-10` }));
        await store.delete(key({ agentId: `${agentId}-1`, sessionId: 'session-10' }));
      });

      it('returns an empty list for an agent with nothing stored', async () => {
        await expect(store.list({ agentId })).resolves.toEqual([]);
      });

      it('lists JSON values only, and listBlobs blobs only', async () => {
        await store.set(key({ name: 'json' }), { a: 1 });
        await store.putBlob(key({ kind: 'transcript', name: 'blob' }), 'bytes');
        expect(sortKeys(await store.list({ agentId }))).toEqual(sortKeys([key({ name: 'json' })]));
        expect(sortKeys(await store.listBlobs({ agentId }))).toEqual(
          sortKeys([key({ kind: 'transcript', name: 'blob' })]),
        );
      });
    });

    describe('#putBlob / #readBlob / #blobSize', () => {
      it('stores a string as UTF-8 and reports its byte size', async () => {
        const text = 'héllo 日本語 🎉\nline two\n';
        const k = key({ kind: 'tool-output', name: 'out-1' });
        await expect(store.putBlob(k, text)).resolves.toEqual({ byteSize: Buffer.byteLength(text, 'utf8') });
        await expect(store.blobSize(k)).resolves.toBe(Buffer.byteLength(text, 'utf8'));
        const { bytes } = await collectBlob(store.readBlob(k));
        expect(bytes.toString('utf8')).toBe(text);
      });

      it('stores bytes exactly, including NUL and 0xFF', async () => {
        const data = new Uint8Array([0, 255, 1, 254, 0, 0, 10, 13, 128, 127]);
        const k = key({ kind: 'tool-output', name: 'binary' });
        await expect(store.putBlob(k, data)).resolves.toEqual({ byteSize: data.byteLength });
        const { bytes } = await collectBlob(store.readBlob(k));
        expect([...bytes]).toEqual([...data]);
      });

      it("does not keep a reference to the caller's bytes", async () => {
        const data = new Uint8Array([1, 2, 3]);
        const k = key({ kind: 'tool-output', name: 'copied' });
        await store.putBlob(k, data);
        data[0] = 9;
        const { bytes } = await collectBlob(store.readBlob(k));
        expect([...bytes]).toEqual([1, 2, 3]);
      });

      it('replaces an existing blob', async () => {
        const k = key({ kind: 'tool-output', name: 'replaced' });
        await store.putBlob(k, 'a much longer first version');
        await expect(store.putBlob(k, 'short')).resolves.toEqual({ byteSize: 5 });
        await expect(store.blobSize(k)).resolves.toBe(5);
        expect((await collectBlob(store.readBlob(k))).bytes.toString('utf8')).toBe('short');
      });

      it('stores an empty blob', async () => {
        const k = key({ kind: 'tool-output', name: 'empty' });
        await expect(store.putBlob(k, '')).resolves.toEqual({ byteSize: 0 });
        await expect(store.blobSize(k)).resolves.toBe(0);
        expect((await collectBlob(store.readBlob(k))).bytes.byteLength).toBe(0);
      });

      it('returns undefined as the size of a missing blob', async () => {
        await expect(store.blobSize(key({ kind: 'tool-output', name: 'missing' }))).resolves.toBeUndefined();
      });

      it('fails with StoreError when reading a missing blob', async () => {
        const error = await storeFailureOf(() => store.readBlob(key({ kind: 'tool-output', name: 'missing' })));
        expect(error.code).toBe(ErrorCodes.STORE_ERROR);
        expect(error.fix).toEqual(expect.any(String));
      });

      it('reads byte ranges, end exclusive, clamped to the blob', async () => {
        const k = key({ kind: 'tool-output', name: 'ranged' });
        const data = Buffer.from('0123456789abcdefghij', 'utf8');
        await store.putBlob(k, data);
        const read = async (range: { start?: number; end?: number }) =>
          (await collectBlob(store.readBlob(k, range))).bytes.toString('utf8');
        expect(await read({ start: 0, end: 5 })).toBe('01234');
        expect(await read({ start: 5, end: 10 })).toBe('56789');
        expect(await read({ start: 15 })).toBe('fghij');
        expect(await read({ end: 3 })).toBe('012');
        expect(await read({ start: 18, end: 100 })).toBe('ij');
        expect(await read({ start: 7, end: 7 })).toBe('');
        expect(await read({ start: 25 })).toBe('');
        expect(await read({})).toBe(data.toString('utf8'));
      });

      it('rejects a negative or fractional range with StoreError', async () => {
        const k = key({ kind: 'tool-output', name: 'bad-range' });
        await store.putBlob(k, 'abc');
        for (const range of [{ start: -1 }, { end: -2 }, { start: 0.5 }]) {
          const error = await storeFailureOf(() => store.readBlob(k, range));
          expect(error.code).toBe(ErrorCodes.STORE_ERROR);
        }
      });

      it('streams a large blob in several chunks and returns it byte-exact', async () => {
        const k = key({ kind: 'tool-output', name: 'large' });
        const data = generatedBytes(largeBlobBytes, 0xc7c7);
        await expect(store.putBlob(k, data)).resolves.toEqual({ byteSize: largeBlobBytes });
        await expect(store.blobSize(k)).resolves.toBe(largeBlobBytes);
        const whole = await collectBlob(store.readBlob(k));
        expect(whole.bytes.byteLength).toBe(largeBlobBytes);
        expect(sha256(whole.bytes)).toBe(sha256(data));
        expect(whole.chunkCount).toBeGreaterThan(1);

        const start = Math.floor(largeBlobBytes / 3) - 7;
        const end = Math.floor((largeBlobBytes * 2) / 3) + 13;
        const part = await collectBlob(store.readBlob(k, { start, end }));
        expect(part.bytes.byteLength).toBe(end - start);
        expect(sha256(part.bytes)).toBe(sha256(data.subarray(start, end)));
        await store.deleteBlob(k);
      });
    });

    describe('#appendBlob', () => {
      it('creates the blob when absent and appends after that', async () => {
        const k = key({ kind: 'transcript', name: 'transcript.jsonl' });
        const first = '{"role":"user","content":"こんにちは"}\n';
        const second = '{"role":"assistant","content":"hi"}\n';
        await expect(store.appendBlob(k, first)).resolves.toEqual({ byteSize: Buffer.byteLength(first) });
        await expect(store.appendBlob(k, new Uint8Array(Buffer.from(second)))).resolves.toEqual({
          byteSize: Buffer.byteLength(first) + Buffer.byteLength(second),
        });
        expect((await collectBlob(store.readBlob(k))).bytes.toString('utf8')).toBe(first + second);
      });

      it('keeps a transcript line with opaque provider items byte for byte', async () => {
        const k = key({ kind: 'transcript', name: 'opaque.jsonl' });
        const lines = opaqueItemMessages().map((message) => `${JSON.stringify(message)}\n`);
        for (const line of lines) await store.appendBlob(k, line);
        const text = (await collectBlob(store.readBlob(k))).bytes.toString('utf8');
        expect(text).toBe(lines.join(''));
        expect(
          text
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as unknown),
        ).toStrictEqual(opaqueItemMessages());
      });

      it('keeps every line when many appends to one blob run at once', async () => {
        const k = key({ kind: 'transcript', name: 'concurrent.jsonl' });
        const lines = Array.from(
          { length: 40 },
          (_, index) => `${JSON.stringify({ index, text: 'y'.repeat(100 + index) })}\n`,
        );
        const sizes = await Promise.all(lines.map((line) => store.appendBlob(k, line)));
        const total = lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
        expect(Math.max(...sizes.map((size) => size.byteSize))).toBe(total);
        const text = (await collectBlob(store.readBlob(k))).bytes.toString('utf8');
        expect(text.split('\n').filter(Boolean).sort()).toEqual(lines.map((line) => line.trimEnd()).sort());
      });

      it('appends across chunk boundaries and keeps every byte in order', async () => {
        const k = key({ kind: 'transcript', name: 'growing' });
        const pieces = [
          generatedBytes(700_000, 1),
          generatedBytes(1_500_000, 2),
          generatedBytes(3, 3),
          generatedBytes(900_001, 4),
        ];
        let total = 0;
        for (const piece of pieces) {
          total += piece.byteLength;
          await expect(store.appendBlob(k, piece)).resolves.toEqual({ byteSize: total });
        }
        const expected = Buffer.concat(pieces);
        const whole = await collectBlob(store.readBlob(k));
        expect(sha256(whole.bytes)).toBe(sha256(expected));
        const part = await collectBlob(store.readBlob(k, { start: 699_990, end: 2_200_010 }));
        expect(sha256(part.bytes)).toBe(sha256(expected.subarray(699_990, 2_200_010)));
        await store.deleteBlob(k);
      });
    });

    describe('#deleteBlob / #listBlobs', () => {
      it('deletes a blob and reports whether it existed', async () => {
        const k = key({ kind: 'tool-output', name: 'gone' });
        await store.putBlob(k, 'bytes');
        await expect(store.deleteBlob(k)).resolves.toBe(true);
        await expect(store.blobSize(k)).resolves.toBeUndefined();
        await expect(store.deleteBlob(k)).resolves.toBe(false);
      });

      it('lists blobs by agent, session and kind, isolated from other agents', async () => {
        const written = [
          key({ sessionId: 's1', kind: 'tool-output', name: 'a' }),
          key({ sessionId: 's1', kind: 'transcript', name: 'b' }),
          key({ sessionId: 's2', kind: 'tool-output', name: 'c' }),
        ];
        for (const k of written) await store.putBlob(k, k.name);
        const other = key({ agentId: `${agentId}0`, sessionId: 's1', kind: 'tool-output', name: 'a' });
        await store.putBlob(other, 'other');
        expect(sortKeys(await store.listBlobs({ agentId }))).toEqual(sortKeys(written));
        expect(sortKeys(await store.listBlobs({ agentId, sessionId: 's1' }))).toEqual(sortKeys(written.slice(0, 2)));
        expect(sortKeys(await store.listBlobs({ agentId, sessionId: 's1', kind: 'tool-output' }))).toEqual(
          sortKeys(written.slice(0, 1)),
        );
        await store.deleteBlob(other);
      });
    });

    describe('key validation', () => {
      it('accepts any non-empty id, keeps hostile ids apart and lists them back as they were', async () => {
        for (const part of ['sessionId', 'name'] as const) {
          const written = HOSTILE_STORE_KEY_PARTS.map((value) => key({ [part]: value }));
          for (const [index, k] of written.entries()) {
            await store.set(k, index);
            await store.putBlob(k, `blob ${index}`);
          }
          for (const [index, k] of written.entries()) {
            await expect(store.get(k)).resolves.toBe(index);
            await expect(store.blobSize(k)).resolves.toBe(Buffer.byteLength(`blob ${index}`));
          }
          expect(sortKeys(await store.list({ agentId }))).toEqual(sortKeys(written));
          expect(sortKeys(await store.listBlobs({ agentId }))).toEqual(sortKeys(written));
          if (part === 'sessionId') {
            for (const k of written)
              expect(sortKeys(await store.list({ agentId, sessionId: k.sessionId }))).toEqual(sortKeys([k]));
          }
          for (const k of written) {
            await store.delete(k);
            await store.deleteBlob(k);
          }
        }
      });

      const parts = ['agentId', 'sessionId', 'name'] as const;
      for (const part of parts) {
        for (const bad of INVALID_STORE_KEY_PARTS) {
          it(`rejects ${part} ${JSON.stringify(bad)} with StoreKeyError on every operation`, async () => {
            const k = key({ [part]: bad });
            const calls: Array<() => unknown> = [
              () => store.get(k),
              () => store.set(k, 1),
              () => store.delete(k),
              () => store.putBlob(k, 'x'),
              () => store.appendBlob(k, 'x'),
              () => store.readBlob(k),
              () => store.blobSize(k),
              () => store.deleteBlob(k),
            ];
            if (part !== 'name') {
              const prefix: StoreKeyPrefix = part === 'agentId' ? { agentId: bad } : { agentId, sessionId: bad };
              calls.push(
                () => store.list(prefix),
                () => store.listBlobs(prefix),
              );
            }
            for (const call of calls) {
              const error = await storeFailureOf(call);
              expect(error.code).toBe(ErrorCodes.STORE_KEY_INVALID);
            }
          });
        }
      }

      it('rejects a kind that is not a StoreKind', async () => {
        const k = { ...key(), kind: '../escape' as StoreKind };
        for (const call of [() => store.set(k, 1), () => store.get(k), () => store.putBlob(k, 'x')]) {
          const error = await storeFailureOf(call);
          expect(error.code).toBe(ErrorCodes.STORE_KEY_INVALID);
        }
      });

      it('stores nothing when a key is rejected', async () => {
        await storeFailureOf(() => store.set(key({ name: '' }), 1));
        await expect(store.list({ agentId })).resolves.toEqual([]);
      });
    });

    describe('#close', () => {
      it('is optional, and when present can be called more than once', async () => {
        const close = store.close?.bind(store);
        if (close === undefined) {
          expect(store.close).toBeUndefined();
          return;
        }
        await close();
        await expect(close()).resolves.toBeUndefined();
      });
    });
  });
}
