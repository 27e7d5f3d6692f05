import fc from 'fast-check';

import { utf8ByteLength } from '../token-counting/text-parts';
import { cutToUtf8Bytes } from './utf8-cut';

/** Texts of any code points, with emoji, CJK, accents and lone surrogates of both halves mixed in. */
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('😀', 'é', '日本語', '\uD83D', '\uDE00', 'ascii '),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

describe('cutToUtf8Bytes', () => {
  it('returns the longest prefix within the byte budget and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -2, max: 160 }), (input, maxBytes) => {
        const cut = cutToUtf8Bytes(input, maxBytes);
        expect(input.startsWith(cut)).toBe(true);
        expect(utf8ByteLength(cut)).toBeLessThanOrEqual(Math.max(0, maxBytes));
        const next = input.charCodeAt(cut.length);
        expect(cut.length > 0 && isHigh(cut.charCodeAt(cut.length - 1)) && isLow(next)).toBe(false);
        if (cut.length < input.length) {
          // The next code point (a whole pair) would not fit.
          const step = isHigh(next) && isLow(input.charCodeAt(cut.length + 1)) ? 2 : 1;
          expect(utf8ByteLength(input.slice(0, cut.length + step))).toBeGreaterThan(maxBytes);
        }
      }),
      { seed: 20250101, numRuns: 400 },
    );
  });

  it('counts bytes as the encoder does for well-formed text', () => {
    const sample = 'héllo 日本語 😀😀 done';
    for (let maxBytes = 0; maxBytes <= Buffer.byteLength(sample); maxBytes++) {
      const cut = cutToUtf8Bytes(sample, maxBytes);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(maxBytes);
      expect(Buffer.from(sample).subarray(0, Buffer.byteLength(cut)).toString('utf8')).toBe(cut);
    }
  });

  it('returns the text itself when it fits, and nothing for a budget of 0', () => {
    const input = 'fits 😀';
    expect(cutToUtf8Bytes(input, 100)).toBe(input);
    expect(cutToUtf8Bytes(input, Buffer.byteLength(input))).toBe(input);
    expect(cutToUtf8Bytes(input, 0)).toBe('');
  });
});
