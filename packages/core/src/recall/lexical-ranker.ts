import { sortSlotsByScore } from './descending-order';
import { recallTerm, recallTokens } from './recall-terms';
import { TermPostings } from './term-postings';

/** BM25+ parameters (the usual values: k1 1.2, b 0.7, and BM25+'s lower bound d 0.5 for a matching term). */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };

/** At most this many query terms, the rarest first (a pasted page must not cost a scan per word). */
const MAX_QUERY_TERMS = 24;

/**
 * Entries a query scores at most, over all its terms: terms are taken rarest first while their
 * matches stay within it, so a turn's cost stays flat on a long history. A term left out matches
 * more than this many entries, and tells them apart least (on the long-memory data sets, with a few
 * hundred turns per conversation, no term is ever left out).
 */
const MAX_QUERY_POSTINGS = 1500;

/**
 * The entries a search matched: their slots, best first (of equal scores, the first found first),
 * and their scores by slot.
 */
export interface LexicalMatches {
  slots: number[];
  scores: Float64Array;
}

interface IndexedText {
  text: string;
}

/**
 * Ranks entries by their words: BM25+ over stemmed terms, on {@link TermPostings} (a byte pool and
 * flat arrays, so that the index of a long history stays within its text's size; a map-per-term
 * full-text library took about forty times as much a posting). Adding or removing an entry costs that entry.
 */
export class LexicalRanker {
  private readonly postings = new TermPostings();

  /** How many entries are indexed. */
  get size(): number {
    return this.postings.size;
  }

  /** Indexes many entries at once (a rebuild after a restart). */
  addAll(entries: ReadonlyArray<{ slot: number; entry: IndexedText }>): void {
    for (const { slot, entry } of entries) this.add(slot, entry);
    this.postings.trim();
  }

  add(slot: number, entry: IndexedText): void {
    // Tokens are counted first, so that each distinct one is stemmed once (most of a rebuild's cost).
    const tokens = new Map<string, number>();
    for (const token of recallTokens(entry.text)) tokens.set(token, (tokens.get(token) ?? 0) + 1);
    const terms = new Map<string, number>();
    for (const [token, count] of tokens) {
      const term = recallTerm(token);
      if (term !== null) terms.set(term, (terms.get(term) ?? 0) + count);
    }
    this.postings.add(slot, terms);
  }

  /** Leaves an entry out of every later search. */
  remove(slot: number): void {
    this.postings.remove(slot);
  }

  has(slot: number): boolean {
    return this.postings.has(slot);
  }

  /** The distinct terms of an indexed entry. */
  terms(slot: number): ReadonlyArray<string> {
    return this.postings.termsOf(slot);
  }

  /**
   * The query's terms worth searching: distinct, matching some entry, the rarest first. Frequent terms
   * stay (BM25 weighs them low): leaving out those in a quarter of the entries cost 2.5 points of
   * evidence recall on LoCoMo at 16,000 tokens, where a speaker's name is in half the turns.
   */
  queryTerms(text: string): string[] {
    const seen = new Set<string>();
    for (const token of recallTokens(text)) {
      const term = recallTerm(token);
      if (term !== null) seen.add(term);
    }
    return this.usefulTerms([...seen]);
  }

  /**
   * `terms` (already index terms) that match some entry, the rarest first, at most
   * {@link MAX_QUERY_TERMS}, matching at most `maxPostings` entries in all.
   */
  usefulTerms(terms: ReadonlyArray<string>, maxPostings: number = MAX_QUERY_POSTINGS): string[] {
    const found: Array<[string, number]> = [];
    for (const term of terms) {
      const frequency = this.postings.frequency(term);
      if (frequency > 0) found.push([term, frequency]);
    }
    found.sort(byFrequency);
    const kept: string[] = [];
    let postings = 0;
    for (const [term, frequency] of found) {
      if (kept.length >= MAX_QUERY_TERMS || postings + frequency > maxPostings) break;
      kept.push(term);
      postings += frequency;
    }
    return kept;
  }

  /**
   * How much of `queryTerms` (index terms) a set of terms covers, each term weighed by its inverse
   * document frequency: one currency for an indexed entry and a text outside the index (a summary's
   * line), where BM25 scores of the index cannot be compared with anything else.
   */
  coverage(queryTerms: ReadonlyArray<string>, terms: ReadonlySet<string> | ReadonlyArray<string>): number {
    const has = Array.isArray(terms) ? new Set(terms) : (terms as ReadonlySet<string>);
    const documents = this.postings.size;
    let covered = 0;
    for (const term of queryTerms) {
      if (!has.has(term)) continue;
      const frequency = this.postings.frequency(term);
      covered += Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
    }
    return covered;
  }

  /**
   * The entries matching any of `terms` (index terms), best first, with their BM25+ scores by slot.
   * An entry's score is the sum over the terms it holds, times how many it holds (an entry matching
   * more of the question ranks above one matching a single rare word many times).
   */
  search(terms: ReadonlyArray<string>): LexicalMatches {
    if (terms.length === 0) return { slots: [], scores: new Float64Array(0) };
    const { k, b, d } = BM25;
    const documents = this.postings.size;
    const averageLength = this.postings.averageLength;
    // Sums and matched terms by slot, the slots in the order first found (that order breaks ties).
    const sums = new Float64Array(this.postings.slotLimit);
    const matched = new Int32Array(this.postings.slotLimit);
    const slots: number[] = [];
    for (const term of new Set(terms)) {
      const frequency = this.postings.frequency(term);
      if (frequency === 0) continue;
      const inverse = Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
      const postings = this.postings.livePostings(term);
      for (let at = 0; at < postings.length; at++) {
        const slot = postings.slots[at]!;
        const count = postings.counts[at]!;
        const length = this.postings.lengthOfSlot(slot);
        if (matched[slot] === 0) slots.push(slot);
        sums[slot] =
          sums[slot]! + inverse * (d + (count * (k + 1)) / (count + k * (1 - b + (b * length) / averageLength)));
        matched[slot] = matched[slot]! + 1;
      }
    }
    for (const slot of slots) sums[slot] = sums[slot]! * matched[slot]!;
    sortSlotsByScore(slots, sums);
    return { slots, scores: sums };
  }
}

/** Terms with their frequencies, the rarest first. */
function byFrequency(a: [string, number], b: [string, number]): number {
  return a[1] - b[1];
}
