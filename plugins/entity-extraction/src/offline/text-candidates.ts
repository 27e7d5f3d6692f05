/** A value found in a text, with its position (for "newest mention wins"). */
export interface TextCandidate {
  value: string;
  position: number;
}

const SEPARATORS = /[\s,;()[\]{}"'`<>!?*|]+/g;

/**
 * Splits a text into word-like tokens for shape and pattern tests: white space and most punctuation
 * separate tokens; `- _ . @ : / +` stay inside them (dates, e-mails, ids, times), trailing `.` and
 * `:` are removed. Positions are character offsets of the token in the text.
 */
export function textTokens(text: string): TextCandidate[] {
  const tokens: TextCandidate[] = [];
  let start = 0;
  const push = (end: number) => {
    let raw = text.slice(start, end);
    let offset = start;
    while (raw.length > 0 && /[.:#\-/+]/.test(raw[0]!)) {
      raw = raw.slice(1);
      offset++;
    }
    raw = raw.replace(/[.:\-/+]+$/, '');
    if (raw.length > 0) tokens.push({ value: raw, position: offset });
  };
  for (const match of text.matchAll(SEPARATORS)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(text.length);
  return tokens;
}

/**
 * Where an enum value is mentioned in a text: case-insensitive, at word boundaries, with `_`, `-`
 * and spaces interchangeable (`basic_economy` matches "basic economy"). Mentions inside a longer
 * mention of another value of the same enum are left out ("economy" inside "basic economy").
 */
export function enumMentions(text: string, values: readonly (string | number)[]): TextCandidate[] {
  const found: Array<TextCandidate & { end: number; original: string | number }> = [];
  for (const value of values) {
    const literal = String(value);
    if (literal.trim().length === 0) continue;
    const source = literal
      .split(/[\s_-]+/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('[\\s_-]+');
    const regex = new RegExp(`(?<![A-Za-z0-9])${source}(?![A-Za-z0-9])`, 'gi');
    for (const match of text.matchAll(regex)) {
      found.push({ value: literal, position: match.index, end: match.index + match[0].length, original: value });
    }
  }
  return found
    .filter((a) => !found.some((b) => b !== a && b.position <= a.position && b.end >= a.end && b.end - b.position > a.end - a.position))
    .sort((a, b) => a.position - b.position)
    .map(({ value, position }) => ({ value, position }));
}
