/**
 * The visible marker that stands where text was left out, saying how much: e.g.
 * `[... 1,204 lines (53,112 bytes) elided ...]`. The model sees that something is missing; the
 * full text stays recoverable from the caller's history.
 */
export function elisionMarker(lines: number, bytes: number): string {
  return `[... ${lines.toLocaleString('en-US')} lines (${bytes.toLocaleString('en-US')} bytes) elided ...]`;
}

/** The longest marker that {@link elisionMarker} can produce for a text of `totalBytes` bytes (for budgeting). */
export function longestElisionMarker(totalBytes: number): string {
  return elisionMarker(totalBytes, totalBytes);
}
