import { surrogateSafeCut, utf8ByteLength } from '@ctxkit/core';

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut between code points
 * (never inside a surrogate pair). A binary search over character offsets with core's
 * `utf8ByteLength` and `surrogateSafeCut`: a text's UTF-8 bytes are never fewer than its UTF-16
 * code units, so the cut lies within the first `maxBytes` characters.
 */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes || utf8ByteLength(text) <= maxBytes) return text;
  let low = 0;
  let high = Math.min(text.length, Math.floor(maxBytes));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (utf8ByteLength(text.slice(0, middle)) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  return text.slice(0, surrogateSafeCut(text, low, 'down'));
}
