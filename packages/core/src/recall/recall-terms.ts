import stem from 'wink-porter2-stemmer';

/**
 * English words too common to tell one turn from another. Ranking already weighs terms by rarity;
 * leaving these out keeps the index smaller and a question's filler ("what did I ...") from
 * matching every turn.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to ' +
    'was will with i me my we our you your he she him her his its do did does done have has had what which who whom ' +
    'when ' +
    'where why how can could would should am been being were so than too very just about from up down out over under ' +
    'again further once here all any both each few more most other some own same only s t don now ve ll re d m o y'
  ).split(' '),
);

/** Words: runs of letters and digits, in any script. */
const WORD = /[\p{L}\p{N}]+/gu;
/** Scripts written without spaces between words: indexed as overlapping character pairs. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]+/gu;
/** The same test without the global flag (a global one keeps where it stopped between calls). */
const HAS_UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
/** Words the Porter2 stemmer applies to. */
const LATIN_WORD = /^[a-z]+$/;

/** Stems seen before (a conversation's vocabulary is small; stemming is most of indexing's cost). */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 200_000;

/**
 * The tokens of `text` for the recall index: words, and for scripts written without spaces
 * (Chinese, Japanese, Korean, Thai) every pair of neighbouring characters, the usual way to index
 * such text without a dictionary.
 */
export function recallTokens(text: string): string[] {
  // Most texts have no such script: their words are the tokens, found in one pass.
  if (!HAS_UNSPACED.test(text)) return text.match(WORD) ?? [];
  const tokens: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (!HAS_UNSPACED.test(word)) {
      tokens.push(word);
      continue;
    }
    let rest = 0;
    for (const run of word.matchAll(UNSPACED)) {
      if (run.index > rest) tokens.push(word.slice(rest, run.index));
      const chars = Array.from(run[0]);
      if (chars.length === 1) tokens.push(chars[0]!);
      for (let index = 0; index + 1 < chars.length; index++) tokens.push(chars[index]! + chars[index + 1]!);
      rest = run.index + run[0].length;
    }
    if (rest < word.length) tokens.push(word.slice(rest));
  }
  return tokens;
}

/**
 * One token as an index term: lowercased, English stop words left out (`null`), English words
 * reduced to their Porter2 stem (`doctors` and `doctor` match), anything else kept as it is.
 */
export function recallTerm(token: string): string | null {
  const lower = token.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  if (!LATIN_WORD.test(lower) || lower.length < 3) return lower;
  let stemmed = stems.get(lower);
  if (stemmed === undefined) {
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stemmed = stem(lower);
    stems.set(lower, stemmed);
  }
  return stemmed;
}

/** The distinct index terms of `text`, in first-seen order. */
export function recallTermsOf(text: string): string[] {
  const seen = new Set<string>();
  for (const token of recallTokens(text)) {
    const term = recallTerm(token);
    if (term !== null) seen.add(term);
  }
  return [...seen];
}
