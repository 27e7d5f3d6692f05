/** A value found in a text, with its position (for "newest mention wins"). */
export interface TextCandidate {
  value: string;
  position: number;
}

const SEPARATORS = /[\s,;()[\]{}"'`<>!?*|]+/g;
/** Marks removed from the start of a token. */
const LEADING_MARKS = '.:#-/+';
/** Marks removed from the end of a token (sentence punctuation after an id or a date). */
const TRAILING_MARKS = '.:-/+';

/**
 * Splits a text into word-like tokens for shape and pattern tests: white space and most punctuation
 * separate tokens; `- _ . @ : / +` stay inside them (dates, e-mails, ids, times), trailing `.` and
 * `:` are removed. Positions are character offsets of the token in the text.
 */
export function textTokens(text: string): TextCandidate[] {
  const tokens: TextCandidate[] = [];
  const push = (start: number, end: number) => {
    while (start < end && LEADING_MARKS.includes(text[start]!)) start++;
    while (end > start && TRAILING_MARKS.includes(text[end - 1]!)) end--;
    if (end > start) tokens.push({ value: text.slice(start, end), position: start });
  };
  let start = 0;
  SEPARATORS.lastIndex = 0;
  for (let match = SEPARATORS.exec(text); match !== null; match = SEPARATORS.exec(text)) {
    push(start, match.index);
    start = match.index + match[0].length;
  }
  push(start, text.length);
  return tokens;
}

/** An enum value and the expression that finds its mentions. */
interface MentionPattern {
  literal: string;
  regex: RegExp;
}

/**
 * The mention patterns of each enum, built once per list of values (recognizers keep theirs for the strategy's life).
 */
const mentionPatternsByEnum = new WeakMap<readonly (string | number)[], MentionPattern[]>();

function mentionPatterns(values: readonly (string | number)[]): MentionPattern[] {
  let patterns = mentionPatternsByEnum.get(values);
  if (patterns) return patterns;
  patterns = [];
  for (const value of values) {
    const literal = String(value);
    if (literal.trim().length === 0) continue;
    const source = literal
      .split(/[\s_-]+/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('[\\s_-]+');
    patterns.push({ literal, regex: new RegExp(`(?<![A-Za-z0-9])${source}(?![A-Za-z0-9])`, 'gi') });
  }
  mentionPatternsByEnum.set(values, patterns);
  return patterns;
}

/**
 * Where an enum value is mentioned in a text: case-insensitive, at word boundaries, with `_`, `-`
 * and spaces interchangeable (`basic_economy` matches "basic economy"). Mentions inside a longer
 * mention of another value of the same enum are left out ("economy" inside "basic economy").
 */
export function enumMentions(text: string, values: readonly (string | number)[]): TextCandidate[] {
  const found: Array<TextCandidate & { end: number }> = [];
  for (const { literal, regex } of mentionPatterns(values)) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      found.push({ value: literal, position: match.index, end: match.index + match[0].length });
    }
  }
  return found
    .filter(
      (a) =>
        !found.some(
          (b) => b !== a && b.position <= a.position && b.end >= a.end && b.end - b.position > a.end - a.position,
        ),
    )
    .sort((a, b) => a.position - b.position)
    .map(({ value, position }) => ({ value, position }));
}
