import fc from 'fast-check';

import { GptTokenizerEncoder } from '../token-counting/bpe-encoder';
import { BpeTokenCounter, SharedCountCaches } from '../token-counting/bpe-token-counter';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { utf8ByteLength } from '../token-counting/text-parts';
import { truncateHead, truncateHeadTail, truncateTail, truncateToFit } from './truncate-to-fit';

const counter = createTokenCounter({ model: 'gpt-4o' });
const logLines = Array.from(
  { length: 5000 },
  (_, index) => `line ${index}: worker-${index % 7} handled request ${index * 31} ok`,
).join('\n');

function isWellFormed(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      index++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return false;
  }
  return true;
}

describe('truncateToFit', () => {
  it('returns the text unchanged when it fits', () => {
    const result = truncateToFit('short text', { kind: 'head-tail', maxTokens: 100, counter });
    expect(result).toMatchObject({ text: 'short text', truncated: false, elided: { lines: 0, bytes: 0, chars: 0 } });
  });

  it('names the ref and the elided span (line, char) in the marker, by tokens and by bytes, within budget', () => {
    const text = `alpha 日本語\n${'b'.repeat(900)}\n😀${'c'.repeat(700)}\nomega`;
    const ref = `to_${'0f'.repeat(16)}`;
    for (const result of [
      truncateToFit(text, { kind: 'head-tail', maxTokens: 120, counter, ref }),
      truncateToFit(text, { kind: 'head-tail', maxBytes: 400, ref }),
      truncateToFit(text, { kind: 'head', maxBytes: 300, ref }),
      truncateToFit(text, { kind: 'tail', maxBytes: 300, ref }),
    ]) {
      expect(result.truncated).toBe(true);
      if (result.tokens !== undefined) expect(result.tokens).toBeLessThanOrEqual(120);
      else expect(result.bytes).toBeLessThanOrEqual(result.kind === 'head-tail' ? 400 : 300);
      const marker = new RegExp(
        String.raw`\n?\[\.\.\. [\d,]+ lines \([\d,]+ bytes\) elided: ref=(\w+) from line (\d+) char (` +
          String.raw`\d+) to line (\d+) char (\d+) \.\.\.\]\n?`,
      ).exec(result.text)!;
      expect(marker[1]).toBe(ref);
      const at = (line: number, char: number): number =>
        text
          .split('\n')
          .slice(0, line - 1)
          .reduce((sum, part) => sum + part.length + 1, 0) + char;
      const from = at(Number(marker[2]), Number(marker[3]));
      const to = at(Number(marker[4]), Number(marker[5]));
      expect(to - from).toBe(result.elided.chars);
      expect(result.text.slice(0, marker.index)).toBe(text.slice(0, from));
      expect(result.text.slice(marker.index + marker[0].length)).toBe(text.slice(to));
    }
  });

  it("names the ref alone when the text is not the ref's own (locate: false)", () => {
    const text = `${'x'.repeat(3000)}\n${'y'.repeat(3000)}`;
    const result = truncateToFit(text, { kind: 'head-tail', maxBytes: 500, ref: 'to_view', locate: false });
    expect(result.bytes).toBeLessThanOrEqual(500);
    expect(result.text).toMatch(/\n\[\.\.\. 2 lines \([\d,]+ bytes\) elided: ref=to_view \.\.\.\]\n/);
  });

  it('keeps the beginning for head, with a marker saying how many lines and bytes were elided', () => {
    const result = truncateHead(logLines, 200, counter);
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith('line 0: worker-0')).toBe(true);
    expect(result.text).toMatch(/\[\.\.\. [\d,]+ lines \([\d,]+ bytes\) elided \.\.\.\]$/);
    expect(counter.count(result.text)).toBeLessThanOrEqual(200);
    expect(result.tokens).toBe(counter.count(result.text));
    expect(result.elided.bytes).toBe(
      utf8ByteLength(logLines) - utf8ByteLength(result.text.slice(0, result.text.lastIndexOf('\n['))),
    );
  });

  it('keeps the end for tail', () => {
    const result = truncateTail(logLines, 200, counter);
    expect(result.text.endsWith('handled request 154969 ok')).toBe(true);
    expect(result.text.startsWith('[... ')).toBe(true);
    expect(counter.count(result.text)).toBeLessThanOrEqual(200);
  });

  it('keeps both ends for head-tail and elides the middle', () => {
    const result = truncateHeadTail(logLines, 300, counter);
    expect(result.text.startsWith('line 0:')).toBe(true);
    expect(result.text.endsWith('request 154969 ok')).toBe(true);
    expect(result.text).toContain('elided ...]');
    expect(counter.count(result.text)).toBeLessThanOrEqual(300);
    expect(result.elided.lines).toBeGreaterThan(4000);
  });

  it('uses most of the budget', () => {
    const result = truncateHeadTail(logLines, 2000, counter);
    expect(result.tokens!).toBeGreaterThan(1900);
    expect(result.tokens!).toBeLessThanOrEqual(2000);
  });

  it('tokenizes only about what it keeps of a huge text', () => {
    const caches = new SharedCountCaches();
    const own = new BpeTokenCounter(new GptTokenizerEncoder('o200k_base'), caches, 'gpt-4o', {
      encoding: 'o200k_base',
      approximate: false,
    });
    const huge = `${logLines}\n`.repeat(40);
    const result = truncateHeadTail(huge, 1000, own);
    expect(result.tokens!).toBeLessThanOrEqual(1000);
    expect(caches.tokenizedChars).toBeLessThan(huge.length / 20);
  });

  it('never splits a surrogate pair and always fits, on emoji and Japanese text (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('🎉', '👨‍👩‍👧', '日本語', 'テキスト', 'abc ', '\n', '𠮷', 'x'), {
          minLength: 1,
          maxLength: 400,
        }),
        fc.integer({ min: 0, max: 120 }),
        fc.constantFrom('head' as const, 'tail' as const, 'head-tail' as const),
        (parts, maxTokens, kind) => {
          const text = parts.join('');
          const result = truncateToFit(text, { kind, maxTokens, counter });
          if (!isWellFormed(result.text)) return false;
          if (!result.truncated) return result.text === text;
          return (
            counter.count(result.text) <=
            Math.max(maxTokens, counter.count(result.text.replace(/^[\s\S]*?(\[\.\.\.)/, '$1')))
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts by UTF-8 bytes when given maxBytes, surrogate safe', () => {
    const text = '🎉'.repeat(1000) + 'tail end';
    for (const kind of ['head', 'tail', 'head-tail'] as const) {
      const result = truncateToFit(text, { kind, maxBytes: 300 });
      expect(result.bytes).toBeLessThanOrEqual(300);
      expect(isWellFormed(result.text)).toBe(true);
      expect(result.truncated).toBe(true);
    }
    expect(truncateToFit(text, { kind: 'tail', maxBytes: 300 }).text.endsWith('tail end')).toBe(true);
  });

  it('throws a RangeError without a budget', () => {
    expect(() => truncateToFit('x', { kind: 'head' })).toThrow(RangeError);
    expect(() => truncateToFit('x', { kind: 'head', maxTokens: 3 })).toThrow(RangeError);
  });
});
