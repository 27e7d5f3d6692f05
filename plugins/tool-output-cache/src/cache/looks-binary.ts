/** Any character {@link looksBinary} counts, written as those it does not count: the engine scans for them faster. */
const CONTROL = /[^\t\n\f\r\u001b\u0020-\u007e\u0080-\ufffc\ufffe\uffff]/;
const EVERY_CONTROL = new RegExp(CONTROL.source, 'g');

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
