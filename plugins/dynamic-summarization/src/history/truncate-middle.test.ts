import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { truncateMiddle } from './truncate-middle';

const counter = new HeuristicTokenCounter('gpt-4o');
const MARKER = /\n\[… (\d+) characters left out …\]\n/;

/** True when `text` holds a high surrogate not followed by a low one, or a low one not preceded by a high one. */
function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

describe('truncateMiddle', () => {
  it('returns a text that fits unchanged', () => {
    expect(truncateMiddle('short text', 100, counter)).toBe('short text');
  });

  it('keeps a head and a tail of the text around a marker counting what was left out, within the budget', () => {
    const text = Array.from({ length: 400 }, (_, index) => `line ${index}`).join('\n');
    const cut = truncateMiddle(text, 200, counter);
    const marker = MARKER.exec(cut)!;
    const [head, tail] = cut.split(marker[0]) as [string, string];
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(Number(marker[1])).toBe(text.length - head.length - tail.length);
    expect(head.length).toBeGreaterThan(tail.length);
    expect(counter.count(cut)).toBeLessThanOrEqual(200);
  });

  it('never splits a surrogate pair at either cut (emoji and astral CJK stay whole)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 200, maxLength: 2000 }),
        fc.integer({ min: 30, max: 150 }),
        (text, maxTokens) => {
          const cut = truncateMiddle(text, maxTokens, counter);
          expect(hasLoneSurrogate(cut)).toBe(false);
        },
      ),
    );
  });

  it('cuts a text of emoji only between pairs', () => {
    const text = '😀'.repeat(3000);
    const cut = truncateMiddle(text, 300, counter);
    const [head, , tail] = cut.split(MARKER) as [string, string, string];
    expect(head.length % 2).toBe(0);
    expect(cut.endsWith('😀')).toBe(true);
    expect(hasLoneSurrogate(cut)).toBe(false);
    expect(tail.length % 2).toBe(0);
  });
});
