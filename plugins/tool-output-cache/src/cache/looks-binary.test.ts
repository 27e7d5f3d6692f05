import fc from 'fast-check';

import { looksBinary } from './looks-binary';

describe('looksBinary', () => {
  it('takes a NUL character or more than 10% of control characters for binary', () => {
    expect(looksBinary('header\u0000rest')).toBe(true);
    expect(
      looksBinary(String.fromCharCode(...Array.from({ length: 100 }, (_, index) => (index % 5 === 0 ? 1 : 65)))),
    ).toBe(true);
  });

  it('takes text with tabs, newlines, escapes, emoji and CJK for text', () => {
    expect(looksBinary('')).toBe(false);
    expect(looksBinary('a\tb\r\nc\f\u001b[31mred\u001b[0m 日本語 😀\n'.repeat(50))).toBe(false);
  });

  it('follows its rule for any text: a NUL, or more than 10% of counted control characters in the sample', () => {
    const char = fc.oneof(
      fc.constantFrom('a', ' ', '\n', '\t', '\r', '\f', '\u001b', '日'),
      fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('\u007f', '\ufffd'),
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 300 }), (chars) => {
        const text = chars.join('');
        const counted = [...text].filter((c) =>
          /[\u0001-\u0008\u000b\u000e-\u001a\u001c-\u001f\u007f\ufffd]/.test(c),
        ).length;
        expect(looksBinary(text)).toBe(text.includes('\u0000') || (text.length > 0 && counted / text.length > 0.1));
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it(
    'counts exactly NUL, the controls other than tab, newline, form feed, carriage return and escape, DEL and ' +
      'U+FFFD, among all UTF-16 code units',
    () => {
      const counted = (code: number) =>
        (code < 0x20 && ![9, 10, 12, 13, 27].includes(code)) || code === 0x7f || code === 0xfffd;
      const wrong: number[] = [];
      for (let code = 0; code <= 0xffff; code++)
        if (looksBinary(String.fromCharCode(code)) !== counted(code)) wrong.push(code);
      expect(wrong).toEqual([]);
    },
  );

  it('looks only at the first 8192 characters', () => {
    expect(looksBinary('x'.repeat(8192) + '\u0000')).toBe(false);
  });
});
