/**
 * Any character {@link looksBinary} counts: NUL, controls other than tab, newline, form feed,
 * carriage return and escape, DEL, U+FFFD. Written as the characters it does not count, which the
 * regular expression engine scans for faster than a list of the ones it does.
 */
const CONTROL = /[^\t\n\f\r\u001b\u0020-\u007e\u0080-\ufffc\ufffe\uffff]/;
const EVERY_CONTROL = new RegExp(CONTROL.source, 'g');

/**
 * True when a text looks like binary data rather than text: a NUL character, or more than 10% of
 * control characters (other than tab, newline, carriage return, form feed, escape) among the first
 * 8192 characters.
 */
export function looksBinary(text: string): boolean {
  const sample = text.length > 8192 ? text.slice(0, 8192) : text;
  // A text without any of those characters (nearly every text) is told by one native scan.
  if (!CONTROL.test(sample)) return false;
  return sample.includes('\u0000') || sample.match(EVERY_CONTROL)!.length / sample.length > 0.1;
}
