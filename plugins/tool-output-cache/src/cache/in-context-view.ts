import { type ToolOutputRef } from '@ctxkit/core';
import { cutToUtf8Bytes, surrogateSafeCut, utf8ByteLength } from '@ctxkit/core/strategy-kit';

export interface InContextViewLimits {
  /** Largest view in UTF-8 bytes, the note included. */
  maxMessageBytes: number;
  /** Longest line in characters. */
  maxLineLength: number;
}

export interface InContextView {
  /** The output itself when nothing had to be cut. */
  text: string;
  /** True when lines were cut, the output was cut short, or it is binary. */
  truncated: boolean;
  binary: boolean;
}

/** Bytes kept free for the trailing note, so that view + note stay within `maxMessageBytes`. */
const NOTE_RESERVE_BYTES = 512;
/** A control character {@link looksBinary} counts, written as those it does not count: the engine scans faster. */
const CONTROL = /[^\t\n\f\r\u001b\u0020-\u007e\u0080-\ufffc\ufffe\uffff]/;
const EVERY_CONTROL = new RegExp(CONTROL.source, 'g');

/**
 * The in-context view of a tool output: lines cut at `maxLineLength`, the whole at `maxMessageBytes` (UTF-8 safe), then
 * a note that the rest is expandable by ref; a binary output is only described. A 100 MB output costs a walk over its
 * newlines, not a copy.
 */
export function buildInContextView(
  text: string,
  ref: Readonly<ToolOutputRef>,
  limits: InContextViewLimits,
): InContextView {
  const maxBytes = Math.max(1, Math.floor(limits.maxMessageBytes));
  const maxLine = Math.max(1, Math.floor(limits.maxLineLength));
  if (looksBinary(text)) {
    const note =
      `[binary tool output, ${ref.byte_size ?? '?'} bytes, not shown. It is cached as ref=${ref.id}: ` +
      `tool_output_cache {"ref_id":"${ref.id}"} shows it as numbered lines, tool_output_cache_grep searches it]`;
    return { text: note, truncated: true, binary: true };
  }

  // Fast path: small enough and no long line (the ref measured the bytes when the output was hashed).
  const small = text.length <= maxBytes && (ref.byte_size ?? utf8ByteLength(text)) <= maxBytes;
  if (small && !hasLineLongerThan(text, maxLine)) return { text, truncated: false, binary: false };

  const budget = Math.max(0, maxBytes - NOTE_RESERVE_BYTES);
  const pieces: string[] = [];
  let used = 0;
  let linesShown = 0;
  let linesCut = 0;
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf('\n', position);
    const end = newline === -1 ? text.length : newline;
    let line = text.slice(position, Math.min(end, position + maxLine + 2));
    let cut = false;
    if (end - position > maxLine) {
      const kept = line.slice(0, surrogateSafeCut(line, maxLine));
      line = `${kept} [… ${end - position - kept.length} more chars]`;
      cut = true;
    }
    const lineBytes = utf8ByteLength(line) + (linesShown > 0 ? 1 : 0);
    if (used + lineBytes > budget) {
      if (linesShown === 0) {
        // A first line that alone passes the budget is shown in part.
        pieces.push(cutToUtf8Bytes(line, budget));
        linesShown = 1;
        if (!cut) linesCut++;
      }
      break;
    }
    pieces.push(line);
    used += lineBytes;
    linesShown++;
    if (cut) linesCut++;
    position = end + 1;
  }
  if (position >= text.length && linesCut === 0) return { text, truncated: false, binary: false };
  const cut =
    linesCut > 0
      ? `; ${linesCut} long line${linesCut === 1 ? '' : 's'} cut at ${maxLine} chars (read on in one with ` +
        `"offset":<its line>,"char_offset":${maxLine})`
      : '';
  const note =
    `[output truncated: showing ${linesShown} of ${ref.line_count ?? '?'} lines${cut}. The full output ` +
    `(${ref.byte_size ?? '?'} bytes) is cached as ref=${ref.id}: expand it with tool_output_cache ` +
    `{"ref_id":"${ref.id}","offset":${linesShown + 1}} or search it with ` +
    `tool_output_cache_grep {"ref_id":"${ref.id}","pattern":"..."}]`;
  const noteBytes = utf8ByteLength(note) + 1;
  let body = pieces.join('\n');
  if (utf8ByteLength(body) + noteBytes > maxBytes) body = cutToUtf8Bytes(body, Math.max(0, maxBytes - noteBytes));
  return { text: `${body}\n${note}`, truncated: true, binary: false };
}

/** Jumps to the last newline within `maxLine` chars: a text of short lines is crossed in steps, not line by line. */
function hasLineLongerThan(text: string, maxLine: number): boolean {
  let start = 0;
  while (text.length - start > maxLine) {
    const newline = text.lastIndexOf('\n', start + maxLine);
    if (newline < start) return true;
    start = newline + 1;
  }
  return false;
}

/**
 * True when a text looks like binary data: a NUL, or more than 10% of control characters (other than tab, newline,
 * form feed, carriage return and escape; DEL and U+FFFD count) among its first 8192 characters.
 */
export function looksBinary(text: string): boolean {
  const sample = text.length > 8192 ? text.slice(0, 8192) : text;
  // Nearly every text is told by this one native scan.
  if (!CONTROL.test(sample)) return false;
  return sample.includes('\u0000') || sample.match(EVERY_CONTROL)!.length / sample.length > 0.1;
}
