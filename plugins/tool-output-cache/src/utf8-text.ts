/** UTF-8 byte length of a text, without encoding it. Lone surrogates count as U+FFFD (3 bytes). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut between code points
 * (never inside a surrogate pair or a multi-byte sequence).
 */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes || utf8ByteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    let width: number;
    let units = 1;
    if (code < 0x80) width = 1;
    else if (code < 0x800) width = 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 4;
        units = 2;
      } else width = 3;
    } else width = 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    index += units;
  }
  return text.slice(0, index);
}

/** The first `maxChars` characters of a text, one fewer when the cut would split a surrogate pair. */
export function cutToChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/**
 * True when a text looks like binary data rather than text: a NUL character, or more than 10% of
 * control characters (other than tab, newline, carriage return, form feed, escape) among the first
 * 8192 characters.
 */
export function looksBinary(text: string): boolean {
  const sample = Math.min(text.length, 8192);
  if (sample === 0) return false;
  let control = 0;
  for (let index = 0; index < sample; index++) {
    const code = text.charCodeAt(index);
    if (code === 0) return true;
    if ((code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27) || code === 0x7f || code === 0xfffd) control++;
  }
  return control / sample > 0.1;
}
