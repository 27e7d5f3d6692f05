import { createHash, hash as hashOnce } from 'node:crypto';

import { ToolOutputRefNotFoundError } from '@ctxkit/core';

import { byteChunks, TEXT_CHUNK_CHARS, textChunks } from './text-chunks';

/**
 * The form of every ref id: `to_` and 32 lowercase hex digits (128 bits of the SHA-256 of the
 * output). Safe as a store key part: no path separators, no dots, fixed length.
 */
export const TOOL_OUTPUT_REF_ID_PATTERN = /^to_[0-9a-f]{32}$/;

/** What hashing a tool output measured along the way. */
export interface ToolOutputDigest {
  refId: string;
  byteSize: number;
  lineCount: number;
}

function countNewlines(text: string): number {
  let count = 0;
  let at = text.indexOf('\n');
  while (at !== -1) {
    count++;
    at = text.indexOf('\n', at + 1);
  }
  return count;
}

/**
 * Hashes a tool output chunk by chunk (no second copy of a 100 MB text) and measures it: the ref id
 * is content-addressed, so the same output cached twice is stored once. `lineCount` counts a last
 * line without a newline; an empty output has 0 lines.
 */
export function digestToolOutput(data: string | Uint8Array): ToolOutputDigest {
  if (typeof data === 'string' && data.length <= TEXT_CHUNK_CHARS) {
    // One chunk (nearly every output): hashed in one native call, without a hash object.
    const lineCount = countNewlines(data) + (data.length === 0 || data.endsWith('\n') ? 0 : 1);
    return { refId: refIdOf(hashOnce('sha256', data, 'hex')), byteSize: Buffer.byteLength(data, 'utf8'), lineCount };
  }
  const hash = createHash('sha256');
  let byteSize = 0;
  let newlines = 0;
  let lastIsNewline = true;
  if (typeof data === 'string') {
    for (const chunk of textChunks(data)) {
      // Hashed and measured natively from the string: no byte copy of the chunk is made.
      hash.update(chunk, 'utf8');
      byteSize += Buffer.byteLength(chunk, 'utf8');
      newlines += countNewlines(chunk);
    }
    lastIsNewline = data.length === 0 || data.endsWith('\n');
  } else {
    for (const chunk of byteChunks(data)) {
      hash.update(chunk);
      byteSize += chunk.length;
      for (const byte of chunk) if (byte === 10) newlines++;
    }
    lastIsNewline = data.length === 0 || data[data.length - 1] === 10;
  }
  return { refId: refIdOf(hash.digest('hex')), byteSize, lineCount: newlines + (lastIsNewline ? 0 : 1) };
}

/** The ref id of an output whose SHA-256 is `hex`: its first 128 bits. */
function refIdOf(hex: string): string {
  return `to_${hex.slice(0, 32)}`;
}

/** True for a well-formed ref id. */
export function isToolOutputRefId(value: unknown): value is string {
  return typeof value === 'string' && TOOL_OUTPUT_REF_ID_PATTERN.test(value);
}

/**
 * Checks a ref id before it reaches the store: anything not of the form `to_<32 hex>` (a path, `..`,
 * another session's key) is unknown.
 * @throws ToolOutputRefNotFoundError (`CTXKIT_TOOL_OUTPUT_REF_NOT_FOUND`)
 */
export function assertToolOutputRefId(value: unknown): asserts value is string {
  if (!isToolOutputRefId(value))
    throw new ToolOutputRefNotFoundError(typeof value === 'string' ? value.slice(0, 200) : String(value));
}
