/** Share of shared word tokens (of the shorter text) from which two texts say the same thing. */
export const NEAR_DUPLICATE_OVERLAP = 0.8;

/** Word tokens of a text for comparison: lower-cased words and numbers; CJK text as character pairs. */
export function comparisonTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  // Relative-date annotations (`[7 May, 2023]`) do not make a text different.
  const lower = text.toLowerCase().replace(/\[[^\]]*\]/g, ' ');
  for (const word of lower.match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (/[\u3040-\u30ff\u4e00-\u9fff]/.test(word)) {
      if (word.length === 1) tokens.add(word);
      for (let i = 0; i + 1 < word.length; i++) tokens.add(word.slice(i, i + 2));
    } else {
      tokens.add(word);
    }
  }
  return tokens;
}

/**
 * True when two token sets say nearly the same thing: at least {@link NEAR_DUPLICATE_OVERLAP} of
 * the smaller one's tokens are in the larger one (so a repeat, or a repeat with a few words added,
 * counts). Sets of fewer than three tokens only match an equal set.
 */
export function isNearDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return large.size === 0;
  if (small.size < 3) return small.size === large.size && [...small].every((token) => large.has(token));
  // Sizes too far apart cannot share enough.
  if (small.size < large.size * 0.3) return false;
  let shared = 0;
  for (const token of small) if (large.has(token)) shared++;
  return shared >= NEAR_DUPLICATE_OVERLAP * small.size;
}
