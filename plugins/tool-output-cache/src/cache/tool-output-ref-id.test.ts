import { createHash } from 'node:crypto';

import fc from 'fast-check';

import { digestToolOutput, isToolOutputRefId, TEXT_CHUNK_CHARS, textChunks } from './tool-output-ref-id';

/**
 * The digest as its definition says: the first 128 bits of the SHA-256 of the UTF-8 bytes, the byte size and the lines.
 */
function expected(text: string): { id: string; byte_size: number; line_count: number } {
  const bytes = Buffer.from(text, 'utf8');
  const newlines = text.split('\n').length - 1;
  return {
    id: `to_${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`,
    byte_size: bytes.length,
    line_count: newlines + (text.length === 0 || text.endsWith('\n') ? 0 : 1),
  };
}

describe('digestToolOutput', () => {
  it('gives the ref, byte size and line count of the UTF-8 bytes, lone surrogates included', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc
        .array(fc.constantFrom('a', '\n', '日', '😀', '\ud800', ' '), { maxLength: 200 })
        .map((chars) => chars.join('')),
    );
    fc.assert(
      fc.property(text, (value) => {
        const digest = digestToolOutput(value);
        expect(digest).toEqual(expected(value));
        expect(isToolOutputRefId(digest.id)).toBe(true);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('digests a text longer than one chunk, and one of exactly one chunk, as the definition says', () => {
    const text = `${'line of text 日本語\n'.repeat(Math.ceil(TEXT_CHUNK_CHARS / 10))}last`;
    expect(text.length).toBeGreaterThan(TEXT_CHUNK_CHARS);
    expect(digestToolOutput(text)).toEqual(expected(text));
    expect(digestToolOutput(text.slice(0, TEXT_CHUNK_CHARS))).toEqual(expected(text.slice(0, TEXT_CHUNK_CHARS)));
  });

  it('counts no line in an empty output', () => {
    expect(digestToolOutput('')).toEqual({ ...expected(''), line_count: 0 });
  });
});

/** True when the text ends with a high surrogate or starts with a low one: half of a pair. */
function halfPairAtAnEdge(text: string): boolean {
  return /^[\udc00-\udfff]|[\ud800-\udbff]$/.test(text);
}

describe('textChunks', () => {
  it('splits a text into slices of at most the chunk size that join back to it and encode to its UTF-8 bytes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        (text, chunkChars) => {
          const chunks = [...textChunks(text, chunkChars)];
          expect(chunks.join('')).toBe(text);
          expect(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk, 'utf8')))).toEqual(Buffer.from(text, 'utf8'));
          for (const chunk of chunks) {
            expect(chunk.length).toBeGreaterThan(0);
            expect(chunk.length).toBeLessThanOrEqual(Math.max(2, chunkChars));
            expect(halfPairAtAnEdge(chunk)).toBe(false);
          }
        },
      ),
    );
  });

  it('ends a slice before a surrogate pair the chunk size would split', () => {
    expect([...textChunks('ab😀cd', 3)]).toEqual(['ab', '😀c', 'd']);
  });
});
