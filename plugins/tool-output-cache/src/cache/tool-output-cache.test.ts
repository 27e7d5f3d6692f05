import { CtxkitError, ErrorCodes, MemoryContextStore } from '@ctxkit/core';

import { type CachedToolOutput, ToolOutputCache } from './tool-output-cache';

function newCache(
  store = new MemoryContextStore(),
  limits = { maxMessageBytes: 50 * 1024, maxLineLength: 2000 },
): ToolOutputCache {
  return new ToolOutputCache({ store, agentId: 'agent', sessionId: 'session', ...limits });
}

/** Rebuilds an output from `tool_output_cache` answers, as a model reading it page by page would. */
async function readBack(cache: ToolOutputCache, refId: string): Promise<string> {
  const lines: string[] = [];
  let offset = 1;
  for (;;) {
    const answer = await cache.read(refId, { offset });
    const rows = answer.split('\n').filter((row) => /^ *\d+\t/.test(row));
    if (rows.length === 0) break;
    for (const row of rows) lines.push(row.replace(/^ *\d+\t/, ''));
    const more = /\[more: continue with offset=(\d+)\]$/.exec(answer);
    if (!more) break;
    offset = Number(more[1]);
  }
  return lines.join('\n');
}

describe('ToolOutputCache', () => {
  describe('#put', () => {
    it('stores the output once under a content-addressed ref with its size and line count', async () => {
      const store = new MemoryContextStore();
      const cache = newCache(store);
      const first = await cache.put('a\nb\nc');
      const again = await cache.put('a\nb\nc');
      expect(first.ref).toEqual({ id: expect.stringMatching(/^to_[0-9a-f]{32}$/), byte_size: 5, line_count: 3 });
      expect(first.stored).toBe(true);
      expect(again).toEqual({ ref: first.ref, stored: false });
      expect(await cache.list()).toEqual([first.ref.id]);
    });
  });

  describe('#cacheLater', () => {
    it('gives the ref at once and writes the output when its ref is first read, or at storePending', async () => {
      const store = new MemoryContextStore();
      const putBlob = jest.spyOn(store, 'putBlob');
      const cache = newCache(store);
      const first = await cache.cacheLater('a\nb\nc');
      const second = await cache.cacheLater('d\ne');
      const again = await cache.cacheLater('a\nb\nc');
      expect(first).toEqual({
        ref: { id: expect.stringMatching(/^to_[0-9a-f]{32}$/), byte_size: 5, line_count: 3 },
        stored: true,
      });
      expect([second.stored, again.stored]).toEqual([true, false]);
      expect(putBlob).not.toHaveBeenCalled();
      expect(cache.hasPending).toBe(true);
      expect(await cache.has(second.ref.id)).toBe(true);

      expect(await cache.read(first.ref.id)).toContain('     2\tb');
      expect(putBlob).toHaveBeenCalledTimes(1);
      expect(await cache.storePending()).toEqual([]);
      expect(putBlob).toHaveBeenCalledTimes(2);
      expect(cache.hasPending).toBe(false);
      expect((await cache.list()).sort()).toEqual([first.ref.id, second.ref.id].sort());
      // Stored now: caching it again (here or in another process serving the session) writes nothing.
      expect((await cache.cacheLater('d\ne')).stored).toBe(false);
      expect((await newCache(store).cacheLater('d\ne')).stored).toBe(false);
      expect(await newCache(store).storePending()).toEqual([]);
      expect(putBlob).toHaveBeenCalledTimes(2);
    });

    it("answers without a promise once the session's stored refs are listed, from what the store held", async () => {
      const store = new MemoryContextStore();
      await newCache(store).put('kept\n');
      const cache = newCache(store);
      const listing = cache.cacheLater('first\n');
      expect(listing).toBeInstanceOf(Promise);
      expect((await listing).stored).toBe(true);
      const kept = cache.cacheLater('kept\n');
      const fresh = cache.cacheLater('fresh\n');
      expect(kept).not.toBeInstanceOf(Promise);
      expect(fresh).not.toBeInstanceOf(Promise);
      expect([(kept as CachedToolOutput).stored, (fresh as CachedToolOutput).stored]).toEqual([false, true]);
      expect(await cache.readAll((fresh as CachedToolOutput).ref.id)).toBe('fresh\n');
    });

    it('reports a write that fails and writes it when the ref is read', async () => {
      const store = new MemoryContextStore();
      const original = store.putBlob.bind(store);
      let failures = 1;
      jest
        .spyOn(store, 'putBlob')
        .mockImplementation((key, data) =>
          failures-- > 0 ? Promise.reject(new Error('disk full')) : original(key, data),
        );
      const cache = newCache(store);
      const { ref } = await cache.cacheLater('x\ny');
      expect(await cache.storePending()).toEqual([
        { refId: ref.id, error: expect.objectContaining({ message: 'disk full' }) },
      ]);
      expect(cache.hasPending).toBe(false);
      expect(await cache.has(ref.id)).toBe(true);
      expect(await cache.readAll(ref.id)).toBe('x\ny');
    });

    it('writes nothing for an output deleted or collected before its write', async () => {
      const store = new MemoryContextStore();
      const putBlob = jest.spyOn(store, 'putBlob');
      const cache = newCache(store);
      const gone = await cache.cacheLater('gone');
      const dropped = await cache.cacheLater('dropped');
      const kept = await cache.cacheLater('kept');
      expect(await cache.delete(gone.ref.id)).toBe(true);
      expect(await cache.collect(new Set([kept.ref.id]))).toEqual([dropped.ref.id]);
      expect(await cache.list()).toEqual([kept.ref.id]);
      expect(putBlob).toHaveBeenCalledTimes(1);
      await expect(cache.read(gone.ref.id)).rejects.toMatchObject({ code: ErrorCodes.TOOL_OUTPUT_REF_NOT_FOUND });
    });
  });

  describe('#read', () => {
    it('returns line-numbered text from offset, limit lines', async () => {
      const cache = newCache();
      const { ref } = await cache.put(Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n'));
      const answer = await cache.read(ref.id, { offset: 4, limit: 2 });
      expect(answer.split('\n')).toEqual([
        `[tool_output_cache ref=${ref.id}: lines 4-5 of 10, ${ref.byte_size} bytes]`,
        '     4\tline 4',
        '     5\tline 5',
        '[more: continue with offset=6]',
      ]);
    });

    it('cuts a line of megabytes at maxLineLength and says how long it was and where to read on', async () => {
      const cache = newCache();
      const long = 'x'.repeat(3 * 1024 * 1024);
      const { ref } = await cache.put(`head\n${long}\ntail`);
      const answer = await cache.read(ref.id);
      expect(answer).toContain(
        `     2\t${'x'.repeat(2000)} [… line cut at char 2000 of ${long.length}: read on with offset=2 ` +
          `char_offset=2000]`,
      );
      expect(answer).toContain('     3\ttail');
    });

    it('reads on in a long line from char_offset, part after part, until the whole line is back', async () => {
      const cache = newCache(new MemoryContextStore({ chunkSize: 333 }), {
        maxMessageBytes: 50 * 1024,
        maxLineLength: 100,
      });
      const line = Array.from(
        { length: 2600 },
        (_, index) => String.fromCharCode(0x61 + (index % 26)) + (index % 97 === 0 ? '日' : ''),
      ).join('');
      const { ref } = await cache.put(`first\n${line}\nlast\n`);
      const from = await cache.read(ref.id, { offset: 2, limit: 1, charOffset: 250 });
      expect(from.split('\n')).toEqual([
        `[tool_output_cache ref=${ref.id}: lines 2-2 of 3, ${ref.byte_size} bytes, line 2 from char 250]`,
        `     2\t${line.slice(250, 350)} [… line cut at char 350 of ${line.length}: read on with offset=2 ` +
          `char_offset=350]`,
        '[more: continue with offset=3]',
      ]);
      let rebuilt = '';
      let charOffset = 0;
      for (;;) {
        const answer = await cache.read(ref.id, { offset: 2, limit: 1, charOffset });
        const row =
          /^ {5}2\t(.*?)(?: \[… line cut at char (\d+) of \d+: read on with offset=2 char_offset=(\d+)\])?$/s.exec(
            answer.split('\n')[1]!,
          )!;
        rebuilt += row[1];
        if (row[3] === undefined) break;
        expect(Number(row[3])).toBe(charOffset + row[1]!.length);
        charOffset = Number(row[3]);
      }
      expect(rebuilt).toBe(line);
      // Past the line's end the row is empty; the next lines follow from their start.
      const past = await cache.read(ref.id, { offset: 2, charOffset: line.length + 5 });
      expect(past.split('\n').slice(1, 3)).toEqual(['     2\t', '     3\tlast']);
    });

    it('never splits a surrogate pair where a long line is cut, and reads on from the pair', async () => {
      const cache = newCache(new MemoryContextStore(), { maxMessageBytes: 50 * 1024, maxLineLength: 4 });
      const { ref } = await cache.put('abc😀def');
      const first = await cache.read(ref.id);
      expect(first).toContain('     1\tabc [… line cut at char 3 of 8: read on with offset=1 char_offset=3]');
      expect(await cache.read(ref.id, { charOffset: 3 })).toContain(
        '     1\t😀de [… line cut at char 7 of 8: read on with offset=1 char_offset=7]',
      );
    });

    it('rejects a malformed or unknown ref with ToolOutputRefNotFoundError before touching the store', async () => {
      const cache = newCache();
      for (const bad of ['../../etc/passwd', 'to_../x', '', 'to_' + '0'.repeat(32)]) {
        const error = await cache.read(bad).catch((caught: unknown) => caught);
        expect(CtxkitError.isInstance(error) && error.code).toBe(ErrorCodes.TOOL_OUTPUT_REF_NOT_FOUND);
      }
    });

    it('gives back every byte of a multi-page output', async () => {
      const cache = newCache(new MemoryContextStore({ chunkSize: 777 }), { maxMessageBytes: 4096, maxLineLength: 200 });
      const text = Array.from({ length: 500 }, (_, index) => `${index} ünïcødé 日本語 ${'.'.repeat(index % 50)}`).join(
        '\n',
      );
      const { ref } = await cache.put(text);
      expect(await readBack(cache, ref.id)).toBe(text);
    });
  });

  describe('#grep', () => {
    it('lists matching lines with numbers, context and a cap on matches', async () => {
      const cache = newCache();
      const text = Array.from({ length: 100 }, (_, index) =>
        index % 10 === 0 ? `ERROR ${index}` : `ok ${index}`,
      ).join('\n');
      const { ref } = await cache.put(text);
      const answer = await cache.grep(ref.id, { pattern: '^ERROR', context: 1, maxMatches: 2 });
      expect(answer.split('\n')).toEqual([
        expect.stringContaining('2 matches (stopped at line'),
        '1:ERROR 0',
        '2-ok 1',
        '--',
        '10-ok 9',
        '11:ERROR 10',
        '12-ok 11',
      ]);
    });

    it('searches an invalid regular expression as plain text', async () => {
      const cache = newCache();
      const { ref } = await cache.put('a(b\nc');
      expect(await cache.grep(ref.id, { pattern: 'a(b' })).toContain('1:a(b');
    });

    it('finds a match deep inside a line of megabytes and shows the part around it', async () => {
      const cache = newCache();
      const line = `${'y'.repeat(2_000_000)}NEEDLE${'z'.repeat(3000)}`;
      const { ref } = await cache.put(line);
      const answer = await cache.grep(ref.id, { pattern: 'NEEDLE' });
      expect(answer).toContain('1 match');
      expect(answer).toContain('NEEDLE');
      expect(answer.length).toBeLessThan(5000);
      // The part shown names where a read goes on in that line.
      const next = Number(
        / \[… line cut at char \d+ of 2003006: read on with offset=1 char_offset=(\d+)\]$/.exec(answer)![1],
      );
      expect(answer.slice(0, answer.indexOf(' [… line cut at char')).endsWith(line.slice(next - 1500, next))).toBe(
        true,
      );
    });
  });

  describe('#collect', () => {
    it('deletes the outputs not kept and returns their ids', async () => {
      const cache = newCache();
      const a = await cache.put('a');
      const b = await cache.put('b');
      expect(await cache.collect(new Set([a.ref.id]))).toEqual([b.ref.id]);
      expect(await cache.has(a.ref.id)).toBe(true);
      expect(await cache.has(b.ref.id)).toBe(false);
    });
  });
});
