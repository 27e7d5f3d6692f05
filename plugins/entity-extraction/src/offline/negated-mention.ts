/** Words that, earlier in the same clause, turn a mention into the value the user does not want. */
const NEGATION =
  /(?<![A-Za-z0-9_])(not|no|never|instead of|rather than|other than|except)(?![A-Za-z0-9_])|n['’]t(?![A-Za-z0-9_])/i;

/** Where a clause starts: sentence punctuation, a comma, or "but". */
const CLAUSE_BREAK = /[.,;:!?\n]|(?<![A-Za-z])but(?![A-Za-z])/gi;

/**
 * True when the mention at `position` is negated: its clause (the text since the last `. , ; : ! ?`,
 * line break or "but") contains "not", "no", "never", "n't", "instead of", "rather than", "other
 * than" or "except" before it. "Economy, not business" and "make it economy instead of business"
 * negate "business"; "no, make it economy" does not negate "economy" (the comma ends the clause).
 */
export function isNegatedMention(text: string, position: number): boolean {
  const before = text.slice(0, position);
  let start = 0;
  for (const match of before.matchAll(CLAUSE_BREAK)) start = match.index + match[0].length;
  return NEGATION.test(before.slice(start));
}
