/**
 * Any character {@link looksBinary} counts: NUL, controls other than tab, newline, form feed,
 * carriage return and escape, DEL, U+FFFD. Written as the characters it does not count, which the
 * regular expression engine scans for faster than a list of the ones it does.
 */
const CONTROL = /[^\t\n\f\r\u001b\u0020-\u007e\u0080-\ufffc\ufffe\uffff]/;

/**
 * True when a text looks like binary data rather than text: a NUL character, or more than 10% of
 * control characters (other than tab, newline, carriage return, form feed, escape) among the first
 * 8192 characters.
 */
export function looksBinary(text: string): boolean {
  const sample = Math.min(text.length, 8192);
  if (sample === 0) return false;
  // A text without any of those characters (nearly every text) is told by one native scan.
  if (!CONTROL.test(sample === text.length ? text : text.slice(0, sample))) return false;
  let control = 0;
  for (let index = 0; index < sample; index++) {
    const code = text.charCodeAt(index);
    if (code === 0) return true;
    if (
      (code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27) ||
      code === 0x7f ||
      code === 0xfffd
    )
      control++;
  }
  return control / sample > 0.1;
}
