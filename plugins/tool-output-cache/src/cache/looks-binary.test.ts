import { looksBinary } from './looks-binary';

describe('looksBinary', () => {
  it('takes a NUL character or more than 10% of control characters for binary', () => {
    expect(looksBinary('header\u0000rest')).toBe(true);
    expect(looksBinary(String.fromCharCode(...Array.from({ length: 100 }, (_, index) => (index % 5 === 0 ? 1 : 65))))).toBe(true);
  });

  it('takes text with tabs, newlines, escapes, emoji and CJK for text', () => {
    expect(looksBinary('')).toBe(false);
    expect(looksBinary('a\tb\r\nc\f\u001b[31mred\u001b[0m 日本語 😀\n'.repeat(50))).toBe(false);
  });

  it('looks only at the first 8192 characters', () => {
    expect(looksBinary('x'.repeat(8192) + '\u0000')).toBe(false);
  });
});
