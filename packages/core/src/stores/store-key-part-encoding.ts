/**
 * Longest stored (encoded) form of a key part: a file name with its `.json` suffix and the file
 * store's temporary-file decoration stays within the 255 bytes file systems allow.
 */
export const MAX_ENCODED_STORE_KEY_PART = 200;

/** Characters a key part keeps as they are in its stored form. */
const VERBATIM = /[A-Za-z0-9._:@-]/;

/**
 * The stored form of a store key part (agent id, session id or name): any string, written with
 * `[A-Za-z0-9._:@-]` and `%` escapes only, so that it is one safe path segment and one Redis key
 * segment. Other ASCII characters become `%XX`, other UTF-16 code units `%uXXXX` (lone surrogates
 * included), `%` itself `%25`, and a leading `.` becomes `%2E` (no `.`, `..` or hidden file).
 * Injective: two different parts never share a stored form. Ids made of `[A-Za-z0-9._:@-]` that do
 * not start with `.` are stored as they read.
 */
export function encodeStoreKeyPart(part: string): string {
  let encoded = '';
  for (let index = 0; index < part.length; index++) {
    const char = part[index]!;
    const code = part.charCodeAt(index);
    if (VERBATIM.test(char) && !(index === 0 && char === '.')) encoded += char;
    else if (code < 0x80) encoded += `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else encoded += `%u${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return encoded;
}

/** The key part a stored form stands for (the inverse of {@link encodeStoreKeyPart}). */
export function decodeStoreKeyPart(encoded: string): string {
  return encoded.replace(/%u([0-9A-F]{4})|%([0-9A-F]{2})/g, (_, wide: string | undefined, narrow: string | undefined) =>
    String.fromCharCode(Number.parseInt((wide ?? narrow)!, 16)),
  );
}
