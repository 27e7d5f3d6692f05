/**
 * At most this many characters of an entry are indexed. A `tsvector` holds at most 1 MB; text of
 * short distinct words (or character pairs, below) grows about fivefold on its way there, so this
 * keeps every entry well within the limit. Recall entries are normally far shorter.
 */
export const MAX_SEARCH_TEXT_CHARS = 100_000;

/**
 * The role labels recall text starts its messages with (`user: `, `assistant: `, `assistant called `,
 * `tool result: `). Full-text ranking has no notion of how rare a word is, so a label every entry
 * carries would lift every entry of that role for a question that happens to say "user".
 */
const ROLE_LABEL = /^(?:assistant called |(?:user|assistant|system|developer|tool result|tool): )/gm;

/** Scripts written without spaces between words, as the recall layer's own tokenizer treats them. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]+/gu;

/**
 * The text PostgreSQL indexes for an entry, and searches with for a query: the role labels left out,
 * NUL characters (which PostgreSQL text cannot hold) turned into spaces, every run of a script
 * written without spaces (Chinese, Japanese, Korean, Thai) written as its overlapping character
 * pairs (the parser would otherwise make a whole sentence one word, never matched by a question), and
 * at most {@link MAX_SEARCH_TEXT_CHARS} characters.
 */
export function recallSearchText(text: string): string {
  let limited = text.length > MAX_SEARCH_TEXT_CHARS ? text.slice(0, MAX_SEARCH_TEXT_CHARS) : text;
  // Do not leave half a surrogate pair at the cut.
  const lastCode = limited.charCodeAt(limited.length - 1);
  if (limited.length < text.length && lastCode >= 0xd800 && lastCode <= 0xdbff) limited = limited.slice(0, -1);
  return limited
    .replace(ROLE_LABEL, '')
    .replaceAll('\u0000', ' ')
    .replace(UNSPACED, (run) => {
      const chars = Array.from(run);
      if (chars.length === 1) return ` ${run} `;
      const pairs: string[] = [];
      for (let index = 0; index + 1 < chars.length; index++) pairs.push(chars[index]! + chars[index + 1]!);
      return ` ${pairs.join(' ')} `;
    });
}
