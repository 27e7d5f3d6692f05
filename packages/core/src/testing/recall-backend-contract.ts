import { randomBytes } from 'node:crypto';

import type {
  IRecallBackend,
  RecallEntry,
  RecallRecord,
  RecallReset,
  RecallScopeKey,
  RecallVectors,
} from '../contracts/recall-backend';

/** Options of {@link runRecallBackendContract}. */
export interface RecallBackendContractOptions {
  /**
   * Whether the backend has a search of its own (`search`). `true`: it must have it and pass its
   * cases; `false`: it must not have it (the recall layer then ranks in memory).
   * @default false
   */
  search?: boolean;
}

/** A backend under test and, for the several-writers cases, a second one on the same storage. */
export interface RecallBackendPair {
  backend: IRecallBackend;
  /** A second backend on the same storage, as another process would open it. */
  other: IRecallBackend;
  /** Closes what the pair opened. */
  close?(): Promise<void>;
}

/** An entry of `sessionId` at `[from, to)` with `text`. */
function entry(sessionId: string, from: number, text: string, overrides: Partial<RecallEntry> = {}): RecallEntry {
  return {
    type: 'entry',
    id: `${sessionId}#${from}`,
    sessionId,
    from,
    to: from + 1,
    at: 1_700_000_000_000 + from,
    text,
    fingerprint: `fp-${from}`,
    ...overrides,
  };
}

/** Reads every record of `scope` (from no cursor), or from `cursor`. */
async function readAll(
  backend: IRecallBackend,
  scope: RecallScopeKey,
  cursor?: string,
): Promise<{ records: RecallRecord[]; cursor: string }> {
  return backend.read(scope, cursor);
}

/**
 * The contract every recall backend passes (the generic one over a store's blobs, PostgreSQL's):
 * records come back in append order with their fields intact; a cursor gives only what came after
 * it; scopes never see each other's records; two backends on one storage (two processes) see each
 * other's appends, and concurrent appends lose nothing; a backend's own search finds live entries by
 * their words, best first, and never a reset one. Uses jest's global `describe`/`it`.
 */
export function runRecallBackendContract(
  name: string,
  open: () => Promise<RecallBackendPair>,
  options: RecallBackendContractOptions = {},
): void {
  const search = options.search ?? false;

  describe(`${name} (IRecallBackend contract)`, () => {
    let pair: RecallBackendPair;
    let scope: RecallScopeKey;

    beforeEach(async () => {
      pair = await open();
      scope = { agentId: `contract-${randomBytes(6).toString('hex')}`, scope: 'resource', id: 'user-1' };
    });

    afterEach(async () => {
      await pair?.close?.();
    });

    it('reads nothing from a scope nobody wrote', async () => {
      const { records } = await readAll(pair.backend, scope);
      expect(records).toEqual([]);
    });

    it('gives records back in append order with every field intact', async () => {
      const vectors: RecallVectors = {
        type: 'vectors',
        id: 'v-1',
        model: 'scripted',
        vectors: [{ entryId: 's1#0', vector: [0.1, -2.5e-7, 3, 1 / 3] }],
      };
      const reset: RecallReset = { type: 'reset', id: 'r-1', sessionId: 's1', from: 1, at: 1_700_000_000_500 };
      const written: RecallRecord[] = [
        entry('s1', 0, 'user: 会話 🎉 "quoted" \\ back\nassistant: </recalled-turns> done'),
        entry('s1', 1, 'user: second', { to: 4, embeddingModel: 'scripted', vector: [1, 0] }),
        vectors,
        reset,
      ];
      await pair.backend.append(scope, written.slice(0, 2));
      await pair.backend.append(scope, written.slice(2));
      const { records } = await readAll(pair.backend, scope);
      expect(records).toEqual(written);
    });

    it('gives only what was appended after a cursor', async () => {
      await pair.backend.append(scope, [entry('s1', 0, 'user: one')]);
      const first = await readAll(pair.backend, scope);
      await pair.backend.append(scope, [entry('s1', 1, 'user: two'), entry('s1', 2, 'user: three')]);
      const next = await readAll(pair.backend, scope, first.cursor);
      expect(next.records.map((record) => record.id)).toEqual(['s1#1', 's1#2']);
      const none = await readAll(pair.backend, scope, next.cursor);
      expect(none.records).toEqual([]);
    });

    it('keeps scopes apart: agents, session and resource scopes, ids', async () => {
      const others: RecallScopeKey[] = [
        { ...scope, agentId: `${scope.agentId}-other` },
        { ...scope, scope: 'session' },
        { ...scope, id: 'user-10' },
        { ...scope, id: '../user-1' },
      ];
      await pair.backend.append(scope, [entry('s1', 0, 'user: mine')]);
      for (const other of others) expect((await readAll(pair.backend, other)).records).toEqual([]);
      await pair.backend.append(others[3]!, [entry('s9', 0, 'user: theirs')]);
      expect((await readAll(pair.backend, scope)).records.map((record) => record.id)).toEqual(['s1#0']);
    });

    it('shows one process the records another appended, from its own cursor', async () => {
      await pair.backend.append(scope, [entry('s1', 0, 'user: from the first process')]);
      const seen = await readAll(pair.other, scope);
      expect(seen.records.map((record) => record.id)).toEqual(['s1#0']);
      await pair.other.append(scope, [entry('s2', 0, 'user: from the second process')]);
      const next = await readAll(pair.other, scope, seen.cursor);
      expect(next.records.map((record) => record.id)).toEqual(['s2#0']);
      expect((await readAll(pair.backend, scope)).records.map((record) => record.id)).toEqual(['s1#0', 's2#0']);
    });

    it('loses no record when two processes append at once', async () => {
      const writes: Promise<void>[] = [];
      for (let index = 0; index < 40; index++) {
        const backend = index % 2 === 0 ? pair.backend : pair.other;
        writes.push(backend.append(scope, [entry(index % 2 === 0 ? 'a' : 'b', index, `user: message ${index}`)]));
      }
      await Promise.all(writes);
      const ids = new Set((await readAll(pair.backend, scope)).records.map((record) => record.id));
      for (let index = 0; index < 40; index++) expect(ids.has(`${index % 2 === 0 ? 'a' : 'b'}#${index}`)).toBe(true);
    });

    if (search) {
      describe('#search', () => {
        it('finds live entries by their words, best first', async () => {
          await pair.backend.append(scope, [
            entry('s1', 0, 'user: I bought a tennis racket at the sports store downtown'),
            entry('s1', 1, 'assistant: Tennis is a great sport.'),
            entry('s1', 2, 'user: my sister gave me a stand mixer'),
          ]);
          const hits = await pair.backend.search!(scope, 'where did I buy my tennis racket', 10);
          expect(hits[0]?.id).toBe('s1#0');
          expect(hits.map((hit) => hit.id)).not.toContain('s1#2');
          for (let index = 1; index < hits.length; index++)
            expect(hits[index - 1]!.score).toBeGreaterThanOrEqual(hits[index]!.score);
        });

        it("never finds an entry a reset removed, nor another scope's", async () => {
          await pair.backend.append(scope, [
            entry('s1', 0, 'user: the racket is blue'),
            entry('s1', 1, 'user: the racket is red'),
          ]);
          await pair.backend.append(scope, [{ type: 'reset', id: 'r', sessionId: 's1', from: 1, at: 0 }]);
          await pair.backend.append({ ...scope, id: 'user-2' }, [entry('s1', 0, 'user: the racket is green')]);
          const hits = await pair.backend.search!(scope, 'racket', 10);
          expect(hits.map((hit) => hit.id)).toEqual(['s1#0']);
        });

        it('limits the hits', async () => {
          await pair.backend.append(
            scope,
            Array.from({ length: 12 }, (_, index) => entry('s1', index, `user: racket number ${index}`)),
          );
          expect(await pair.backend.search!(scope, 'racket', 5)).toHaveLength(5);
        });
      });
    } else {
      it('has no search of its own', () => {
        expect(pair.backend.search).toBeUndefined();
      });
    }
  });
}
