import { randomBytes } from 'node:crypto';

import { ErrorCodes, type RecallEntry, type RecallRecord, type RecallScopeKey } from '@ctxkit/core';
import { storeFailureOf } from '@ctxkit/core/testing';

import { type PostgresServerProcess, startPostgresServer } from './__tests__/postgres-server';
import { PostgresContextStore } from './postgres-context-store';
import type { PostgresRecallBackend } from './postgres-recall-backend';

function entry(sessionId: string, from: number, text: string, overrides: Partial<RecallEntry> = {}): RecallEntry {
  const at = 1_700_000_000_000 + from;
  const id = `${sessionId}#${from}`;
  return { type: 'entry', id, sessionId, from, to: from + 1, at, text, fingerprint: `fp-${from}`, ...overrides };
}

let server: PostgresServerProcess;
let store: PostgresContextStore;
let backend: PostgresRecallBackend;
let scope: RecallScopeKey;

beforeAll(async () => {
  server = await startPostgresServer();
  store = new PostgresContextStore({ connectionString: server.url });
  backend = store.recallBackend();
});

afterAll(async () => {
  await store?.close();
  await server?.stop();
});

beforeEach(() => {
  scope = { agentId: `agent-${randomBytes(5).toString('hex')}`, scope: 'resource', id: 'user-1' };
});

describe('PostgresRecallBackend', () => {
  it('is the one backend of its store', () => {
    expect(store.recallBackend()).toBe(backend);
    expect(backend.name).toBe('postgres (recall log, full-text search)');
  });

  describe('#append', () => {
    it('stores a record the scope already holds once (two processes indexing one turn)', async () => {
      await backend.append(scope, [entry('s1', 0, 'user: hello')]);
      const again = [entry('s1', 0, 'user: hello'), entry('s1', 1, 'assistant: hi'), entry('s1', 1, 'assistant: hi')];
      await backend.append(scope, again);
      expect((await backend.read(scope)).records.map((record) => record.id)).toEqual(['s1#0', 's1#1']);
    });

    it('stores an entry again when a reset removed it, and search finds the new one', async () => {
      // The history was edited at position 1: the entry after it is indexed again with the same id.
      await backend.append(scope, [
        entry('s1', 0, 'user: book a flight'),
        entry('s1', 1, 'user: to Paris'),
        entry('s1', 2, 'user: in the morning'),
      ]);
      await backend.append(scope, [
        { type: 'reset', id: 'reset-1', sessionId: 's1', from: 1, at: 1 },
        entry('s1', 1, 'user: to Lisbon', { id: 's1#1-edited' }),
        entry('s1', 2, 'user: in the morning'),
      ]);
      const ids = (await backend.read(scope)).records.map((record) => record.id);
      expect(ids).toEqual(['s1#0', 's1#1', 's1#2', 'reset-1', 's1#1-edited', 's1#2']);
      await expect(backend.search(scope, 'morning', 10)).resolves.toEqual([{ id: 's1#2', score: expect.any(Number) }]);
      expect((await backend.search(scope, 'Paris Lisbon', 10)).map((hit) => hit.id)).toEqual(['s1#1-edited']);
    });

    it('checks every record before writing any', async () => {
      const negative = { type: 'entry', id: 's1#1', sessionId: 's1', from: -1, text: 'x' } as unknown as RecallRecord;
      const bad = [entry('s1', 0, 'user: fine'), negative];
      const error = await storeFailureOf(() => backend.append(scope, bad));
      expect(error.code).toBe(ErrorCodes.STORE_ERROR);
      expect(error.message).toContain('not a recall record');
      expect((await backend.read(scope)).records).toEqual([]);
    });

    it('rejects an invalid scope with StoreKeyError', async () => {
      for (const invalid of [
        { ...scope, id: '' },
        { ...scope, agentId: 'x'.repeat(201) },
      ]) {
        const error = await storeFailureOf(() => backend.append(invalid, [entry('s1', 0, 'user: hi')]));
        expect(error.code).toBe(ErrorCodes.STORE_KEY_INVALID);
      }
    });

    it('keeps text PostgreSQL cannot index verbatim: NUL, lone surrogates, a huge entry', async () => {
      const written = [
        entry('s1', 0, 'user: a\u0000b \ud800 tail'),
        entry('s1', 1, `tool result: ${'word '.repeat(60_000)}needle`),
      ];
      await backend.append(scope, written);
      expect((await backend.read(scope)).records).toEqual(written);
    });
  });

  describe('#read', () => {
    it('pages through many records in append order, from each cursor', async () => {
      for (let index = 0; index < 25; index++) {
        await backend.append(scope, [entry('s1', index, `user: message ${index}`)]);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const result = await backend.read(scope, cursor);
        seen.push(...result.records.map((record) => record.id));
        cursor = result.cursor;
        if (page === 0) await backend.append(scope, [entry('s1', 25, 'user: late')]);
      }
      expect(seen).toEqual(Array.from({ length: 26 }, (_, index) => `s1#${index}`));
    });

    it('rejects a cursor it did not give out', async () => {
      const error = await storeFailureOf(() => backend.read(scope, 'not-a-cursor'));
      expect(error.code).toBe(ErrorCodes.STORE_ERROR);
      expect(error.message).toContain('invalid cursor');
    });
  });

  describe('#search', () => {
    it('finds entries that share any word with the question, not only all of them', async () => {
      await backend.append(scope, [
        entry('s1', 0, 'user: my dentist appointment is on Tuesday'),
        entry('s1', 1, 'user: the weather is nice'),
      ]);
      const hits = await backend.search(scope, 'when do I see the dentist again?', 10);
      expect(hits.map((hit) => hit.id)).toEqual(['s1#0']);
      expect(hits[0]!.score).toBeGreaterThan(0);
    });

    it('does not match every entry on its role label', async () => {
      await backend.append(scope, [
        entry('s1', 0, 'user: I like green tea'),
        entry('s1', 1, 'assistant: noted, the user likes tea'),
      ]);
      expect((await backend.search(scope, 'user', 10)).map((hit) => hit.id)).toEqual(['s1#1']);
    });

    it('reads tsquery operators in a question as plain text', async () => {
      await backend.append(scope, [entry('s1', 0, "user: O'Reilly's book about C:\\tools & (pipes) | !tricks")]);
      const hits = await backend.search(scope, "O'Reilly & (pipes) | !tricks: C:\\tools <-> *", 10);
      expect(hits.map((hit) => hit.id)).toEqual(['s1#0']);
    });

    it('answers nothing for a question of stop words only, or a limit below one', async () => {
      await backend.append(scope, [entry('s1', 0, 'user: what is it')]);
      await expect(backend.search(scope, 'what is it', 10)).resolves.toEqual([]);
      await expect(backend.search(scope, '', 10)).resolves.toEqual([]);
      await backend.append(scope, [entry('s1', 1, 'user: the racket')]);
      await expect(backend.search(scope, 'racket', 0)).resolves.toEqual([]);
    });

    it('finds Japanese text by its character pairs', async () => {
      await backend.append(scope, [
        entry('s1', 0, 'user: 来週の火曜日に歯医者の予約があります'),
        entry('s1', 1, 'user: 今日は天気がいい'),
      ]);
      const hits = await backend.search(scope, '歯医者の予約はいつ？', 10);
      expect(hits.map((hit) => hit.id)).toEqual(['s1#0']);
    });

    it('indexes the first 100,000 characters of an entry', async () => {
      await backend.append(scope, [entry('s1', 0, `tool result: ${'filler '.repeat(20_000)}needle`)]);
      await expect(backend.search(scope, 'needle', 10)).resolves.toEqual([]);
      await expect(backend.search(scope, 'filler', 10)).resolves.toHaveLength(1);
    });

    it("keeps another session's entries when one session resets", async () => {
      await backend.append(scope, [entry('s1', 0, 'user: racket one'), entry('s2', 0, 'user: racket two')]);
      await backend.append(scope, [{ type: 'reset', id: 'r', sessionId: 's1', from: 0, at: 0 }]);
      expect((await backend.search(scope, 'racket', 10)).map((hit) => hit.id)).toEqual(['s2#0']);
    });
  });
});
