import { utf8ByteLength } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { buildInContextView, looksBinary } from './in-context-view';
import { digestToolOutput } from './tool-output-ref-id';

/** Lines of any length with multi-byte characters and emoji, so cuts land next to them. */
const output = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom('日本語'.repeat(30), '😀'.repeat(70), 'x'.repeat(300)),
    ),
    { maxLength: 40 },
  )
  .map((lines) => lines.join('\n'));

describe('buildInContextView', () => {
  it('stays within maxMessageBytes, cuts no character in half, and keeps a text that fits as it is', () => {
    fc.assert(
      fc.property(
        output,
        fc.integer({ min: 600, max: 3000 }),
        fc.integer({ min: 16, max: 200 }),
        (text, maxMessageBytes, maxLineLength) => {
          const view = buildInContextView(text, digestToolOutput(text), { maxMessageBytes, maxLineLength });
          expect(utf8ByteLength(view.text)).toBeLessThanOrEqual(maxMessageBytes);
          expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(view.text)).toBe(false);
          if (!view.truncated) expect(view.text).toBe(text);
          else if (!view.binary) expect(view.text).toContain(`ref=${digestToolOutput(text).id}`);
        },
      ),
      { seed: 20250101, numRuns: 150 },
    );
  });

  it('shows a text that fits the bytes as it is exactly when none of its lines passes maxLineLength', () => {
    const lines = fc.array(
      fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.integer({ min: 0, max: 400 }).map((length) => 'y'.repeat(length)),
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(lines, fc.integer({ min: 16, max: 300 }), (parts, maxLineLength) => {
        const text = parts.join('\n');
        const view = buildInContextView(text, digestToolOutput(text), { maxMessageBytes: 1 << 20, maxLineLength });
        expect(view.truncated).toBe(parts.some((line) => line.length > maxLineLength));
      }),
      { seed: 20250102, numRuns: 300 },
    );
  });

  it('cuts a long line at maxLineLength with a marker and names the ref', () => {
    const text = `short\n${'😀'.repeat(50)}\nend`;
    const view = buildInContextView(text, digestToolOutput(text), { maxMessageBytes: 4096, maxLineLength: 21 });
    expect(view.truncated).toBe(true);
    expect(view.text).toContain('; 1 long line cut at 21 chars');
    expect(view.text.split('\n')[1]).toBe(`${'😀'.repeat(10)} [… 80 more chars]`);
  });
});

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
