import { createHash, hash as hashOnce } from 'node:crypto';

import { type ToolOutputRef, ToolOutputRefNotFoundError } from '@ctxkit/core';
import { countLineFeeds } from '@ctxkit/core/strategy-kit';

import { TEXT_CHUNK_CHARS, textChunks } from './text-chunks';

/** 128 bits of the output's SHA-256. Safe as a store key part: no path separators, no dots, fixed length. */
const TOOL_OUTPUT_REF_ID_PATTERN = /^to_[0-9a-f]{32}$/;

/** The ref of a tool output with everything hashing it measured. */
export type ToolOutputDigest = Required<ToolOutputRef>;

/**
 * Hashes a tool output chunk by chunk (no second copy of a 100 MB text) and measures it. `line_count` counts a last
 * line without a newline; an empty output has 0 lines.
 */
export function digestToolOutput(text: string): ToolOutputDigest {
  const lineCount = countLineFeeds(text) + (text.length === 0 || text.endsWith('\n') ? 0 : 1);
  if (text.length <= TEXT_CHUNK_CHARS) {
    // Nearly every output: hashed in one native call, without a hash object.
    return {
      id: refIdOf(hashOnce('sha256', text, 'hex')),
      byte_size: Buffer.byteLength(text, 'utf8'),
      line_count: lineCount,
    };
  }
  const hash = createHash('sha256');
  let byteSize = 0;
  for (const chunk of textChunks(text)) {
    // Natively from the string: no byte copy of the chunk is made.
    hash.update(chunk, 'utf8');
    byteSize += Buffer.byteLength(chunk, 'utf8');
  }
  return { id: refIdOf(hash.digest('hex')), byte_size: byteSize, line_count: lineCount };
}

function refIdOf(hex: string): string {
  return `to_${hex.slice(0, 32)}`;
}

/** True for a well-formed ref id. */
export function isToolOutputRefId(value: unknown): value is string {
  return typeof value === 'string' && TOOL_OUTPUT_REF_ID_PATTERN.test(value);
}

/**
 * Checks a ref id before it reaches the store: anything else (a path, `..`, another session's key) is unknown.
 * @throws ToolOutputRefNotFoundError (`CTXKIT_TOOL_OUTPUT_REF_NOT_FOUND`)
 */
export function assertToolOutputRefId(value: unknown): asserts value is string {
  if (!isToolOutputRefId(value))
    throw new ToolOutputRefNotFoundError(typeof value === 'string' ? value.slice(0, 200) : String(value));
}
