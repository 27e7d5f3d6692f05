/**
 * Pieces longer than this many characters (one run of letters, of punctuation or of whitespace,
 * which BPE would otherwise merge in time quadratic in its length) are cut before encoding.
 * @default 256
 */
export const MAX_PIECE_CHARS = 256;

/** Texts longer than this are encoded in segments cut at piece boundaries (for early exit). @default 4096 */
export const SEGMENT_CHARS = 4096;

const longRunPatterns = new Map<number, RegExp>();

function longRunPattern(maxRun: number): RegExp {
  let pattern = longRunPatterns.get(maxRun);
  if (pattern === undefined) {
    pattern = new RegExp(`[\\p{L}\\p{M}]{${maxRun + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${maxRun + 1},}|\\s{${maxRun + 1},}`, 'gu');
    longRunPatterns.set(maxRun, pattern);
  }
  return pattern;
}

function isWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || code === 0x2028 || code === 0x2029 || code === 0xfeff;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * True when the o200k and cl100k pre-tokenizers always start a new piece at `index`: right after a
 * line feed before a non-space character, or at a single space between a non-space character and an
 * ASCII letter. Encoding the two sides apart then gives exactly the tokens of encoding them together.
 */
function isSafeCut(text: string, index: number): boolean {
  const previous = text.charCodeAt(index - 1);
  const current = text.charCodeAt(index);
  if (previous === 10) return !isWhitespace(current);
  return current === 32 && !isWhitespace(previous) && isAsciiLetter(text.charCodeAt(index + 1));
}

/** Options of {@link forEachTextPart}; both exist so that tests can force splitting on small inputs. */
export interface TextPartOptions {
  /** @default SEGMENT_CHARS */
  segmentChars?: number;
  /** @default MAX_PIECE_CHARS */
  maxPieceChars?: number;
}

/**
 * Calls `visit` with consecutive parts of `text` (their concatenation is `text`) that can be encoded
 * one by one. Segments are cut only where the pre-tokenizer starts a new piece, so their token counts
 * add up exactly; a run longer than `maxPieceChars` is cut into chunks (never inside a surrogate
 * pair), which keeps BPE linear in the input size, and the sum is then an upper bound. `visit`
 * returns false to stop early. Returns whether a long run was cut (the sum is not exact).
 */
export function forEachTextPart(text: string, visit: (part: string) => boolean, options: TextPartOptions = {}): { split: boolean; stopped: boolean } {
  const segmentChars = options.segmentChars ?? SEGMENT_CHARS;
  const maxPiece = options.maxPieceChars ?? MAX_PIECE_CHARS;
  let split = false;
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    if (text.length - start > segmentChars) {
      end = text.length;
      for (let index = start + segmentChars; index < text.length; index++) {
        if (isSafeCut(text, index)) {
          end = index;
          break;
        }
      }
    }
    const segment = start === 0 && end === text.length ? text : text.slice(start, end);
    const result = visitSegment(segment, visit, maxPiece);
    if (result.split) split = true;
    if (result.stopped) return { split, stopped: true };
    start = end;
  }
  return { split, stopped: false };
}

function visitSegment(segment: string, visit: (part: string) => boolean, maxPiece: number): { split: boolean; stopped: boolean } {
  if (segment.length <= maxPiece) return { split: false, stopped: !visit(segment) };
  const pattern = longRunPattern(maxPiece);
  pattern.lastIndex = 0;
  let match = pattern.exec(segment);
  if (match === null) return { split: false, stopped: !visit(segment) };
  let position = 0;
  while (match !== null) {
    const runStart = match.index;
    const runEnd = runStart + match[0].length;
    if (runStart > position && !visit(segment.slice(position, runStart))) return { split: true, stopped: true };
    let chunkStart = runStart;
    while (chunkStart < runEnd) {
      let chunkEnd = Math.min(runEnd, chunkStart + maxPiece);
      const last = segment.charCodeAt(chunkEnd - 1);
      if (chunkEnd < runEnd && last >= 0xd800 && last <= 0xdbff) chunkEnd--;
      if (!visit(segment.slice(chunkStart, chunkEnd))) return { split: true, stopped: true };
      chunkStart = chunkEnd;
    }
    position = runEnd;
    match = pattern.exec(segment);
  }
  if (position < segment.length && !visit(segment.slice(position))) return { split: true, stopped: true };
  return { split: true, stopped: false };
}

/** UTF-8 byte length of a string, without allocating. Tokens of a text never exceed its UTF-8 bytes. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
