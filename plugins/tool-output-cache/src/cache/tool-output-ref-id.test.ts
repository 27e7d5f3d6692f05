import { createHash } from 'node:crypto';

import fc from 'fast-check';

import { TEXT_CHUNK_CHARS } from './text-chunks';
import { digestToolOutput, isToolOutputRefId } from './tool-output-ref-id';

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
