/** Kinds of information-bearing terms the offline summarizer looks for, most valuable first. */
export type TermKind = 'id' | 'date' | 'amount' | 'code' | 'number' | 'entity' | 'word';

/** A term found in a text. */
export interface Term {
  text: string;
  kind: TermKind;
  /** True when the term names a field (`address1: ...`) rather than being a value. */
  isKey?: boolean;
}

/** Weight of each kind of term in a unit's score. */
export const TERM_WEIGHTS: Readonly<Record<TermKind, number>> = {
  id: 4,
  date: 3,
  amount: 2.5,
  code: 2.5,
  number: 1.5,
  entity: 1.5,
  word: 0.5,
};

const MONTHS =
  'Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov' +
  '(?:ember)?|Dec(?:ember)?';

/** Patterns tried in order; a span taken by an earlier kind is not matched again. */
const PATTERNS: ReadonlyArray<{ kind: TermKind; pattern: RegExp }> = [
  { kind: 'date', pattern: /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b/g },
  { kind: 'date', pattern: new RegExp(`\\b(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?\\b`, 'g') },
  { kind: 'date', pattern: new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)? (?:${MONTHS})\\.?(?:,? \\d{4})?\\b`, 'g') },
  { kind: 'date', pattern: new RegExp(`\\b(?:${MONTHS}),? \\d{4}\\b`, 'g') },
  { kind: 'date', pattern: /(?:\d{4}年)?\d{1,2}月(?:\d{1,2}日)?/g },
  // Times of day carry less than dates: they count as numbers and stay out of the key values.
  { kind: 'number', pattern: /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M)?\b/g },
  { kind: 'id', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  // Ids mix letters and digits (HAT123, ABC123, mia_li_3668, certificate_7504069, call_x9).
  { kind: 'id', pattern: /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*\b/g },
  { kind: 'amount', pattern: /[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|dollars?|%)/g },
  // Codes: all-capital words of 2-6 letters (JFK, SEA, USD).
  { kind: 'code', pattern: /\b[A-Z]{2,6}\b/g },
  { kind: 'number', pattern: /\b\d+(?:[.,]\d+)*\b/g },
  // Quoted titles ("The Hobbit", “Hey Jude”): books, songs, films, names of things.
  { kind: 'entity', pattern: /"[A-Z0-9][^"\n]{0,38}[^\s"]"|“[A-Z0-9][^”\n]{0,38}[^\s”]”/g },
  // Capitalised words not at a sentence start (names, places, products).
  { kind: 'entity', pattern: /(?<=[a-z0-9,;:)] )[A-Z][a-z]+(?:\s[A-Z][a-z]+)*/g },
  { kind: 'word', pattern: /\b[a-z][a-z]{3,}\b/g },
  // Japanese: katakana runs are mostly names and loanwords; kanji runs are content words.
  { kind: 'entity', pattern: /[\u30a1-\u30fa\u30fc]{2,}/g },
  { kind: 'word', pattern: /[\u4e00-\u9fff]{2,}/g },
];

const STOPWORDS = new Set(
  (
    'that this with have from your would could should there their they them what when which will been were please ' +
    'thank thanks about into than then also just like more some only other such here does want need help sure ' +
    'okay yes provide following below above called'
  ).split(' '),
);

/**
 * Finds the information-bearing terms of a text: ids, dates and times, amounts, codes, numbers,
 * named entities and plain words (for rarity). Deterministic; each character belongs to at most one
 * term.
 */
export function findTerms(text: string): Term[] {
  const taken: boolean[] = new Array<boolean>(text.length).fill(false);
  const found: Array<Term & { at: number }> = [];
  for (const { kind, pattern } of PATTERNS) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const at = match.index;
      const end = at + match[0].length;
      if (match[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      let free = true;
      for (let i = at; i < end; i++) if (taken[i]) free = false;
      if (!free) continue;
      if (kind === 'word' && STOPWORDS.has(match[0])) continue;
      for (let i = at; i < end; i++) taken[i] = true;
      found.push(
        text[end] === ':' && text[end + 1] === ' '
          ? { text: match[0], kind, at, isKey: true }
          : { text: match[0], kind, at },
      );
    }
  }
  found.sort((a, b) => a.at - b.at);
  return found.map(({ at: _at, ...term }) => term);
}

/** True for the kinds kept verbatim in the summary's "Key values" line. */
export function isKeyValue(term: Term): boolean {
  return (
    term.kind === 'id' ||
    term.kind === 'date' ||
    term.kind === 'amount' ||
    (term.kind === 'code' && term.text.length >= 3)
  );
}

/**
 * Scores a unit by the information it carries: the weights of its distinct terms, rare plain words
 * weighted by inverse document frequency (`documentFrequency` counts units per lower-cased word),
 * divided by the square root of its length so that long units must carry more to win.
 */
export function informationScore(
  terms: readonly Term[],
  textLength: number,
  documentFrequency: ReadonlyMap<string, number>,
  units: number,
): number {
  const seen = new Set<string>();
  let score = 0;
  for (const term of terms) {
    const key = term.kind === 'word' ? term.text.toLowerCase() : term.text;
    if (seen.has(key)) continue;
    seen.add(key);
    if (term.kind === 'word') {
      const df = documentFrequency.get(key) ?? 1;
      score += TERM_WEIGHTS.word * Math.log(1 + units / df);
    } else {
      score += TERM_WEIGHTS[term.kind];
    }
  }
  return score / Math.sqrt(10 + textLength / 8);
}

/** A statement about the speaker or their people ("I adopted a dog", "my sister lives in Boston", 私は…). */
const FIRST_PERSON = /\b(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our|me|us)\b|(?:私|僕|俺|わたし|うち|我々)/;
/** Weight of a first-person statement: what people say about themselves is what gets asked later. */
export const FIRST_PERSON_WEIGHT = 1.3;
/** Weight of a question: questions rarely carry the answer. */
export const QUESTION_WEIGHT = 0.55;

/** Weight of a unit by its form: first-person statements up, questions down. */
export function statementWeight(text: string): number {
  const question = /[?？]\s*$/.test(text);
  if (question) return QUESTION_WEIGHT;
  return FIRST_PERSON.test(text) ? FIRST_PERSON_WEIGHT : 1;
}
