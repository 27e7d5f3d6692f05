/** UTF-8 bytes and UTF-16 code units of the code point at `index` (a lone surrogate encodes as U+FFFD, 3 bytes). */
function codePointBytes(text: string, index: number): [bytes: number, chars: number] {
  const code = text.charCodeAt(index);
  if (code < 0x80) return [1, 1];
  if (code < 0x800) return [2, 1];
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return [4, 2];
  }
  return [3, 1];
}

/**
 * Length (in UTF-16 code units) of the longest prefix of `text` whose UTF-8 encoding fits in `budget` bytes, cut
 * between code points.
 */
export function utf8PrefixLength(text: string, budget: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const [size, chars] = codePointBytes(text, index);
    if (bytes + size > budget) break;
    bytes += size;
    index += chars;
  }
  return index;
}

/**
 * Start of the longest suffix of `text` (not before `floor`) whose UTF-8 encoding fits in `budget` bytes, cut between
 * code points.
 */
export function utf8SuffixStart(text: string, budget: number, floor: number): number {
  let bytes = 0;
  let index = text.length;
  while (index > floor) {
    const low = text.charCodeAt(index - 1);
    const pair =
      low >= 0xdc00 && low <= 0xdfff && index - 2 >= floor && (text.charCodeAt(index - 2) & 0xfc00) === 0xd800;
    const start = pair ? index - 2 : index - 1;
    const [size] = codePointBytes(text, start);
    if (bytes + size > budget) break;
    bytes += size;
    index = start;
  }
  return index;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut between code points
 * (never inside a surrogate pair). Reads at most `maxBytes` characters of the text.
 */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes) return text;
  return text.slice(0, utf8PrefixLength(text, maxBytes));
}
