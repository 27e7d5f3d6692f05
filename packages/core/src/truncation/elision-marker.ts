/** A place in a text: its 1-based line and the characters (UTF-16 code units) before it on that line. */
export interface TextPosition {
  line: number;
  char: number;
}

/**
 * Where an elided part lies in the whole text a ref holds: from `from` up to (not including) `to`,
 * in the terms the ref's reader takes (a line and a character offset within it). Without the
 * positions (the text cut was not the ref's own text, but an excerpt of it) the ref alone is named.
 */
export interface ElidedSpan {
  ref: string;
  from?: TextPosition;
  to?: TextPosition;
}

/**
 * The visible marker that stands where text was left out, saying how much: e.g.
 * `[... 1,204 lines (53,112 bytes) elided ...]`. The model sees that something is missing; the
 * full text stays recoverable from the caller's history. With `span` (the text is held whole behind
 * a ref) the marker names the ref and where the elided part starts and ends in it:
 * `[... 1 lines (64 bytes) elided: ref=to_… from line 3 char 17 to line 3 char 81 ...]` (the ref
 * alone, `[... 1 lines (64 bytes) elided: ref=to_… ...]`, when the positions are not given).
 */
export function elisionMarker(lines: number, bytes: number, span?: ElidedSpan): string {
  const what = `${lines.toLocaleString('en-US')} lines (${bytes.toLocaleString('en-US')} bytes) elided`;
  if (!span) return `[... ${what} ...]`;
  if (!span.from || !span.to) return `[... ${what}: ref=${span.ref} ...]`;
  return (
    `[... ${what}: ref=${span.ref} from line ${span.from.line} char ${span.from.char} to line ${span.to.line} ` +
    `char ${span.to.char} ...]`
  );
}

/**
 * The longest marker that {@link elisionMarker} can produce for a text of `totalBytes` bytes (for budgeting), naming
 * `ref` when given.
 */
export function longestElisionMarker(totalBytes: number, ref?: string): string {
  const far = { line: totalBytes + 1, char: totalBytes };
  return elisionMarker(totalBytes, totalBytes, ref === undefined ? undefined : { ref, from: far, to: far });
}
