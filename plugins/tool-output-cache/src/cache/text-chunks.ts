import { surrogateSafeCut } from '@ctxkit/core/strategy-kit';

/** Characters per chunk when a large text is hashed, measured or written. */
export const TEXT_CHUNK_CHARS = 1 << 20;

/**
 * Slices of about `chunkChars` characters, never cutting a surrogate pair: each encodes to the same UTF-8 bytes as its
 * part of the whole, so a 100 MB output is hashed and written without a second copy.
 */
export function* textChunks(text: string, chunkChars: number = TEXT_CHUNK_CHARS): Generator<string, void> {
  const size = Math.max(2, Math.floor(chunkChars));
  let start = 0;
  while (start < text.length) {
    const end = surrogateSafeCut(text, Math.min(text.length, start + size), 'down');
    yield text.slice(start, end);
    start = end;
  }
}
