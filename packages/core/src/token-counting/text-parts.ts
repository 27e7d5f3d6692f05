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
    pattern = new RegExp(
      `[\\p{L}\\p{M}]{${maxRun + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${maxRun + 1},}|\\s{${maxRun + 1},}`,
      'gu',
    );
    longRunPatterns.set(maxRun, pattern);
  }
  return pattern;
}

function isWhitespace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x3000 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0xfeff
  );
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * True when the o200k and cl100k pre-tokenizers always start a new piece at `index`: right after a
 * line feed before a non-space character other than '/', or at a single space between a non-space character and an
 * ASCII letter. Encoding the two sides apart then gives exactly the tokens of encoding them together.
 */
export function isSafeCut(text: string, index: number): boolean {
  const previous = text.charCodeAt(index - 1);
  const current = text.charCodeAt(index);
  // o200k's punctuation piece takes trailing line feeds and slashes (`[\r\n/]*`), so not before '/'.
  if (previous === 10) return current !== 47 && !Number.isNaN(current) && !isWhitespace(current);
  return current === 32 && !isWhitespace(previous) && isAsciiLetter(text.charCodeAt(index + 1));
}

/** What {@link forEachTextPart} did. */
export interface TextPartsResult {
  /** True when a long run was cut: the summed count is then an upper bound, not exact. */
  split: boolean;
  /** True when `visit` returned false. */
  stopped: boolean;
  /** Cuts made inside long runs. */
  cuts: number;
}

/** Options of {@link forEachTextPart}; both exist so that tests can force splitting on small inputs. */
export interface TextPartOptions {
  /** @default SEGMENT_CHARS */
  segmentChars?: number;
  /** Runs longer than this are cut. @default MAX_PIECE_CHARS */
  maxPieceChars?: number;
  /** Length of the chunks a long run is cut into (smaller for backends whose BPE is slow). @default maxPieceChars */
  chunkChars?: number;
}

/**
 * Calls `visit` with consecutive parts of `text` (their concatenation is `text`) that can be encoded
 * one by one. Segments are cut only where the pre-tokenizer starts a new piece, so their token counts
 * add up exactly; a run longer than `maxPieceChars` is cut into chunks (never inside a surrogate
 * pair), which keeps BPE linear in the input size, and the sum is then an upper bound. `visit`
 * returns false to stop early. Returns whether a long run was cut (the sum is then not exact) and how
 * many cuts were made inside long runs.
 *
 * BPE is not strictly monotone under splitting: encoding a run in chunks can, rarely, give one token
 * fewer per cut than encoding it whole (measured: at most one per cut over 50,000 random cases).
 * Counters therefore add one token per cut, which makes the split count an upper bound; this is
 * property-tested against whole-text encodes.
 */
export function forEachTextPart(
  text: string,
  visit: (part: string) => boolean,
  options: TextPartOptions = {},
): TextPartsResult {
  const segmentChars = options.segmentChars ?? SEGMENT_CHARS;
  const maxPiece = options.maxPieceChars ?? MAX_PIECE_CHARS;
  const chunk = Math.max(2, Math.min(options.chunkChars ?? maxPiece, maxPiece));
  let split = false;
  let cuts = 0;
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
    const result = visitSegment(segment, visit, maxPiece, chunk);
    cuts += result.cuts;
    if (result.split) split = true;
    if (result.stopped) return { split, stopped: true, cuts };
    start = end;
  }
  return { split, stopped: false, cuts };
}

function visitSegment(
  segment: string,
  visit: (part: string) => boolean,
  maxPiece: number,
  chunk: number,
): TextPartsResult {
  if (segment.length <= maxPiece) return { split: false, stopped: !visit(segment), cuts: 0 };
  const pattern = longRunPattern(maxPiece);
  pattern.lastIndex = 0;
  let match = pattern.exec(segment);
  if (match === null) return { split: false, stopped: !visit(segment), cuts: 0 };
  let cuts = 0;
  // Cuts fall strictly inside a long run, so both sides of every cut are characters of the same
  // run: the pre-tokenizer sees the same pieces around the run as in the whole text, and only the
  // run itself is encoded in chunks (never fewer tokens than the run in one piece).
  let position = 0;
  while (match !== null) {
    const runEnd = match.index + match[0].length;
    // BPE cost grows with the square of a chunk's bytes: chunks of 2- and 3-byte characters (Greek,
    // kana, CJK) are shorter in characters so that every chunk has about the same number of bytes.
    const first = segment.charCodeAt(match.index);
    const runChunk =
      first < 0x80 ? chunk : first < 0x800 ? Math.max(2, Math.ceil(chunk / 2)) : Math.max(2, Math.ceil(chunk / 3));
    let cut = match.index + runChunk;
    while (cut < runEnd) {
      const before = segment.charCodeAt(cut - 1);
      const at = before >= 0xd800 && before <= 0xdbff ? cut - 1 : cut;
      if (at > position) {
        if (!visit(segment.slice(position, at))) return { split: true, stopped: true, cuts };
        cuts++;
        position = at;
      }
      cut = at + runChunk;
    }
    match = pattern.exec(segment);
  }
  if (position < segment.length && !visit(segment.slice(position))) return { split: true, stopped: true, cuts };
  return { split: true, stopped: false, cuts };
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
