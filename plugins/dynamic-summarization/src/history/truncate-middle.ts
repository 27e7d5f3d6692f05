import type { ITokenCounter } from '@ctxkit/core';
import { surrogateSafeCut } from '@ctxkit/core/strategy-kit';

/**
 * Keeps the head (70%) and the tail (30%) of a text within `maxTokens`, with a visible marker
 * saying how many characters were left out. Surrogate-safe; returns the text unchanged when it fits.
 */
export function truncateMiddle(
  text: string,
  maxTokens: number,
  counter: ITokenCounter,
  what = 'characters left out',
): string {
  if (counter.countUpTo(text, maxTokens) <= maxTokens) return text;
  const ratio = text.length / Math.max(1, counter.count(text));
  let keep = Math.max(0, Math.floor(maxTokens * ratio * 0.9) - 24);
  for (let attempt = 0; attempt < 8; attempt++) {
    const headEnd = surrogateSafeCut(text, Math.ceil(keep * 0.7), 'down');
    const tailStart = surrogateSafeCut(text, text.length - Math.floor(keep * 0.3), 'up');
    const tail = text.slice(tailStart);
    const result = `${text.slice(0, headEnd)}\n[… ${text.length - headEnd - tail.length} ${what} …]\n${tail}`;
    if (counter.count(result) <= maxTokens || keep === 0) return result;
    keep = Math.floor(keep * 0.75);
  }
  return `[… ${text.length} ${what} …]`;
}
