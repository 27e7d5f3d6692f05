import { createHash, hash as hashOnce } from 'node:crypto';

import type { ToolOutputRef } from '@ctxkit/core';
import { countLineFeeds, surrogateSafeCut } from '@ctxkit/core/strategy-kit';

/** Characters per chunk when a large text is hashed, measured or written. */
export const TEXT_CHUNK_CHARS = 1 << 20;

/** 128 bits of the output's SHA-256. Safe as a store key part: no path separators, no dots, fixed length. */
const TOOL_OUTPUT_REF_ID_PATTERN = /^to_[0-9a-f]{32}$/;

/** A ref with everything hashing measured. */
export type ToolOutputDigest = Required<ToolOutputRef>;

/** Hashes and measures an output chunk by chunk. `line_count` counts a last line without `\n` (an empty output: 0). */
export function digestToolOutput(text: string): ToolOutputDigest {
  const lineCount = countLineFeeds(text) + (text.length === 0 || text.endsWith('\n') ? 0 : 1);
  // Nearly every output: hashed in one native call, without a hash object.
  if (text.length <= TEXT_CHUNK_CHARS)
    return { id: refIdOf(hashOnce('sha256', text, 'hex')), byte_size: Buffer.byteLength(text), line_count: lineCount };
  const hash = createHash('sha256');
  let byteSize = 0;
  for (const chunk of textChunks(text)) {
    // Natively from the string: no byte copy of the chunk is made.
    hash.update(chunk, 'utf8');
    byteSize += Buffer.byteLength(chunk, 'utf8');
  }
  return { id: refIdOf(hash.digest('hex')), byte_size: byteSize, line_count: lineCount };
}

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

function refIdOf(hex: string): string {
  return `to_${hex.slice(0, 32)}`;
}

export function isToolOutputRefId(value: unknown): value is string {
  return typeof value === 'string' && TOOL_OUTPUT_REF_ID_PATTERN.test(value);
}
