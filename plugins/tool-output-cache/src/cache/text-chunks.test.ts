import fc from 'fast-check';

import { textChunks } from './text-chunks';

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
