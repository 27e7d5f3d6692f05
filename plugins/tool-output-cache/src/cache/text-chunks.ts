import { surrogateSafeCut } from '@ctxkit/core/strategy-kit';

/** Characters per chunk when a large text is hashed, measured or written: 1 Mi characters. */
export const TEXT_CHUNK_CHARS = 1 << 20;

/**
 * Splits a text into slices of about `chunkChars` characters without cutting a surrogate pair, so
 * that each slice encodes to the same UTF-8 bytes as its part of the whole text. Lets a 100 MB tool
 * output be hashed and written without a second 100 MB copy.
 */
export function* textChunks(text: string, chunkChars: number = TEXT_CHUNK_CHARS): Generator<string> {
  const size = Math.max(2, Math.floor(chunkChars));
  let start = 0;
  while (start < text.length) {
    const end = surrogateSafeCut(text, Math.min(text.length, start + size), 'down');
    yield text.slice(start, end);
    start = end;
  }
}
