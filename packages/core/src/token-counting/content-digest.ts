/**
 * A 64-bit digest of a text plus its length, as a short string key. Two independent 32-bit
 * multiplicative hashes over the UTF-16 code units; the key holds no copy of the content, so a cache
 * keyed by it stays small however large the texts are.
 */
export function contentDigest(text: string): string {
  let h1 = 0x811c9dc5 ^ text.length;
  let h2 = 0x9e3779b9;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  return `${(h1 >>> 0).toString(36)}.${(h2 >>> 0).toString(36)}.${text.length.toString(36)}`;
}
