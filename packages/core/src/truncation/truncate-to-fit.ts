import { isSafeCut, utf8ByteLength } from '../token-counting/text-parts';
import type { ITokenCounter } from '../token-counting/token-counter';
import { type ElidedSpan, elisionMarker, longestElisionMarker, type TextPosition } from './elision-marker';
import { countLineFeeds, surrogateSafeCut } from './safe-cut';
import type { TruncationKind, TruncationResult } from './truncation-kind';
import { utf8PrefixLength, utf8SuffixStart } from './utf8-cut';

/** Options of {@link truncateToFit}: a token budget (with a counter) or a byte budget. */
export interface TruncateToFitOptions {
  kind: TruncationKind;
  /** Token budget of the result, marker included. Needs `counter`. */
  maxTokens?: number;
  counter?: ITokenCounter;
  /** Byte budget (UTF-8) of the result, marker included. Used when `maxTokens` is absent. */
  maxBytes?: number;
  /** For `head-tail`: share of the budget that goes to the head. @default 0.5 */
  headShare?: number;
  /**
   * The ref that holds `text` whole (a cached tool output): the marker names it and where the
   * elided part starts and ends in it (line and character), so that a reader of the ref can bring
   * that part back exactly.
   */
  ref?: string;
  /**
   * With `ref`: false when `text` is not the ref's own text but an excerpt of it (an in-context
   * view), so that positions in `text` are not positions in the ref: the marker then names the ref
   * only. @default true
   */
  locate?: boolean;
}

/** Characters per counting chunk when walking a long text. */
const CHUNK_CHARS = 8192;
/** How far past a chunk's nominal end a piece boundary is looked for. */
const CHUNK_SLACK = 2048;

/**
 * Cuts `text` to fit a token or byte budget, UTF-8 and surrogate safe, with a visible marker
 * saying how many lines and bytes were left out. By tokens it never tokenizes more than it keeps
 * plus one chunk per side: a proven bound (tokens ≤ UTF-8 bytes) or `countUpTo` decides that a text
 * fits, the kept parts are measured chunk by chunk from their end of the text, with a binary search
 * on character offsets inside the last chunk, and the result is checked by the counter (never over
 * `maxTokens`). Returns the text unchanged when it fits.
 * @throws RangeError when neither `maxTokens` (with `counter`) nor `maxBytes` is given
 */
export function truncateToFit(text: string, options: TruncateToFitOptions): TruncationResult {
  const { kind } = options;
  const headShare = options.headShare ?? 0.5;
  if (options.maxTokens !== undefined) {
    if (!options.counter) throw new RangeError('truncateToFit: maxTokens needs a counter');
    return truncateByTokens(
      text,
      kind,
      Math.max(0, Math.floor(options.maxTokens)),
      options.counter,
      headShare,
      refOf(options),
    );
  }
  if (options.maxBytes !== undefined)
    return truncateByBytes(text, kind, Math.max(0, Math.floor(options.maxBytes)), headShare, refOf(options));
  throw new RangeError('truncateToFit: give maxTokens (with a counter) or maxBytes');
}

/** Keeps the beginning of `text` (file reads) within `maxTokens`. See {@link truncateToFit}. */
export function truncateHead(text: string, maxTokens: number, counter: ITokenCounter): TruncationResult {
  return truncateToFit(text, { kind: 'head', maxTokens, counter });
}

/** Keeps the end of `text` (logs) within `maxTokens`. See {@link truncateToFit}. */
export function truncateTail(text: string, maxTokens: number, counter: ITokenCounter): TruncationResult {
  return truncateToFit(text, { kind: 'tail', maxTokens, counter });
}

/** Keeps both ends of `text` (command output) within `maxTokens`, eliding the middle. See {@link truncateToFit}. */
export function truncateHeadTail(
  text: string,
  maxTokens: number,
  counter: ITokenCounter,
  headShare = 0.5,
): TruncationResult {
  return truncateToFit(text, { kind: 'head-tail', maxTokens, counter, headShare });
}

/** The ref a marker names, and whether it says where in it the elided part lies. */
interface MarkerRef {
  id: string;
  locate: boolean;
}

function refOf(options: TruncateToFitOptions): MarkerRef | undefined {
  return options.ref === undefined ? undefined : { id: options.ref, locate: options.locate !== false };
}

function untouched(text: string, kind: TruncationKind, tokens?: number): TruncationResult {
  const result: TruncationResult = {
    text,
    truncated: false,
    kind,
    bytes: utf8ByteLength(text),
    elided: { lines: 0, bytes: 0, chars: 0 },
  };
  if (tokens !== undefined) result.tokens = tokens;
  return result;
}

/**
 * The line (1-based) and character within it of `index` in `text`, counting the line feeds of `text[from, index)` on
 * from `startLine`.
 */
function positionOf(text: string, index: number, from = 0, startLine = 1): TextPosition {
  const line = startLine + countLineFeeds(text, from, index);
  const lineStart = index === 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
  return { line, char: index - lineStart };
}

function assemble(
  text: string,
  kind: TruncationKind,
  headEnd: number,
  tailStart: number,
  ref?: MarkerRef,
): { text: string; elided: TruncationResult['elided'] } {
  const middleChars = tailStart - headEnd;
  const middle = text.slice(headEnd, tailStart);
  const middleLineFeeds = countLineFeeds(middle);
  const elided = {
    lines: middleLineFeeds + (middleChars > 0 ? 1 : 0),
    bytes: utf8ByteLength(middle),
    chars: middleChars,
  };
  let span: ElidedSpan | undefined;
  if (ref?.locate) {
    const from = positionOf(text, headEnd);
    const to = positionOf(text, tailStart, tailStart, from.line + middleLineFeeds);
    span = { ref: ref.id, from, to };
  } else if (ref) span = { ref: ref.id };
  const marker = elisionMarker(elided.lines, elided.bytes, span);
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  if (kind === 'head') return { text: head.length > 0 ? `${head}\n${marker}` : marker, elided };
  if (kind === 'tail') return { text: tail.length > 0 ? `${marker}\n${tail}` : marker, elided };
  return { text: `${head}${head.length > 0 ? '\n' : ''}${marker}${tail.length > 0 ? '\n' : ''}${tail}`, elided };
}

function truncateByTokens(
  text: string,
  kind: TruncationKind,
  maxTokens: number,
  counter: ITokenCounter,
  headShare: number,
  ref: MarkerRef | undefined,
): TruncationResult {
  const totalBytes = utf8ByteLength(text);
  if (totalBytes <= maxTokens) return untouched(text, kind);
  const whole = counter.countUpTo(text, maxTokens);
  if (whole <= maxTokens) return untouched(text, kind, whole);
  const markerTokens = counter.count(`\n${longestElisionMarker(totalBytes, ref?.id)}\n`);
  let budget = maxTokens - markerTokens;
  for (let attempt = 0; attempt < 6; attempt++) {
    let headEnd = 0;
    let tailStart = text.length;
    if (budget > 0) {
      if (kind === 'head') headEnd = prefixWithin(text, budget, counter);
      else if (kind === 'tail') tailStart = suffixWithin(text, budget, counter, 0);
      else {
        const headBudget = Math.floor(budget * headShare);
        headEnd = prefixWithin(text, headBudget, counter);
        tailStart = suffixWithin(text, budget - headBudget, counter, headEnd);
      }
    }
    const assembled = assemble(text, kind, headEnd, tailStart, ref);
    const tokens = counter.countUpTo(assembled.text, maxTokens);
    if (tokens <= maxTokens || budget <= 0) {
      return {
        text: assembled.text,
        truncated: true,
        kind,
        tokens,
        bytes: utf8ByteLength(assembled.text),
        elided: assembled.elided,
      };
    }
    // Chunk sums may differ from the joined text by a token per chunk boundary: shrink and retry.
    budget -= tokens - maxTokens + 8 + attempt * 16;
  }
  const marker = assemble(text, kind, 0, text.length, ref);
  return {
    text: marker.text,
    truncated: true,
    kind,
    tokens: counter.count(marker.text),
    bytes: utf8ByteLength(marker.text),
    elided: marker.elided,
  };
}

/** End of the next forward chunk starting at `start`: a piece boundary near CHUNK_CHARS when there is one. */
function nextChunkEnd(text: string, start: number): number {
  const nominal = start + CHUNK_CHARS;
  if (nominal >= text.length) return text.length;
  const limit = Math.min(text.length, nominal + CHUNK_SLACK);
  for (let index = nominal; index < limit; index++) if (isSafeCut(text, index)) return index;
  return surrogateSafeCut(text, nominal, 'down');
}

/** Start of the next backward chunk ending at `end`. */
function previousChunkStart(text: string, end: number, floor: number): number {
  const nominal = end - CHUNK_CHARS;
  if (nominal <= floor) return floor;
  const limit = Math.max(floor + 1, nominal - CHUNK_SLACK);
  for (let index = nominal; index > limit; index--) if (isSafeCut(text, index)) return index;
  return surrogateSafeCut(text, nominal, 'up');
}

/** Largest `end` such that `text[0, end)` counts at most `budget` (chunk by chunk, then binary search). */
function prefixWithin(text: string, budget: number, counter: ITokenCounter): number {
  let offset = 0;
  let remaining = budget;
  while (offset < text.length && remaining > 0) {
    const end = nextChunkEnd(text, offset);
    const chunk = text.slice(offset, end);
    const tokens = counter.countUpTo(chunk, remaining);
    if (tokens <= remaining) {
      remaining -= tokens;
      offset = end;
      continue;
    }
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const mid = surrogateSafeCut(chunk, Math.ceil((low + high) / 2), 'down');
      if (mid <= low) break;
      if (counter.countUpTo(chunk.slice(0, mid), remaining) <= remaining) low = mid;
      else high = mid - 1;
    }
    return offset + surrogateSafeCut(chunk, low, 'down');
  }
  return offset;
}

/** Smallest `start` ≥ `floor` such that `text[start, end)` counts at most `budget`. */
function suffixWithin(text: string, budget: number, counter: ITokenCounter, floor: number): number {
  let offset = text.length;
  let remaining = budget;
  while (offset > floor && remaining > 0) {
    const start = previousChunkStart(text, offset, floor);
    const chunk = text.slice(start, offset);
    const tokens = counter.countUpTo(chunk, remaining);
    if (tokens <= remaining) {
      remaining -= tokens;
      offset = start;
      continue;
    }
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const mid = surrogateSafeCut(chunk, Math.floor((low + high) / 2), 'up');
      if (mid >= high) break;
      if (counter.countUpTo(chunk.slice(mid), remaining) <= remaining) high = mid;
      else low = mid + 1;
    }
    return start + surrogateSafeCut(chunk, high, 'up');
  }
  return offset;
}

function truncateByBytes(
  text: string,
  kind: TruncationKind,
  maxBytes: number,
  headShare: number,
  ref: MarkerRef | undefined,
): TruncationResult {
  const totalBytes = utf8ByteLength(text);
  if (totalBytes <= maxBytes) return untouched(text, kind);
  const budget = Math.max(0, maxBytes - utf8ByteLength(`\n${longestElisionMarker(totalBytes, ref?.id)}\n`));
  let headEnd = 0;
  let tailStart = text.length;
  if (kind === 'head') headEnd = utf8PrefixLength(text, budget);
  else if (kind === 'tail') tailStart = utf8SuffixStart(text, budget, 0);
  else {
    const headBudget = Math.floor(budget * headShare);
    headEnd = utf8PrefixLength(text, headBudget);
    tailStart = utf8SuffixStart(text, budget - headBudget, headEnd);
  }
  const assembled = assemble(text, kind, headEnd, tailStart, ref);
  return {
    text: assembled.text,
    truncated: true,
    kind,
    bytes: utf8ByteLength(assembled.text),
    elided: assembled.elided,
  };
}
