import MiniSearch from 'minisearch';
import { recallTerm, recallTokens } from './recall-terms';

/** BM25+ parameters (MiniSearch's defaults, the usual values). */
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

interface IndexedText {
  text: string;
}

/** A document of the index: the entry's slot (a small number the index gives each live entry) and its terms. */
interface IndexedDocument {
  slot: number;
  text: string;
}

/**
 * Ranks entries by their words, BM25+ over stemmed terms, on MiniSearch (a small, well-kept
 * full-text index that adds and removes one document at a time, so indexing a turn costs that turn).
 */
export class LexicalRanker {
  // Documents are given as their index terms joined by spaces: each text is tokenized and stemmed
  // once, here, not again inside the index.
  private readonly index = new MiniSearch<IndexedDocument>({
    fields: ['text'],
    idField: 'slot',
    storeFields: [],
    tokenize: splitTerms,
    processTerm: keepTerm,
    searchOptions: { bm25: BM25, tokenize: splitTerms, processTerm: keepTerm },
  });
  /** Entries per term, to leave out terms that match most of the index. */
  private readonly documentFrequency = new Map<string, number>();
  private readonly termsOf = new Map<number, string[]>();

  /** How many entries are indexed. */
  get size(): number {
    return this.index.documentCount;
  }

  /** Indexes many entries at once (a rebuild after a restart). */
  addAll(entries: ReadonlyArray<{ slot: number; entry: IndexedText }>): void {
    this.index.addAll(entries.map(({ slot, entry }) => ({ slot, text: this.count(slot, entry) })));
  }

  add(slot: number, entry: IndexedText): void {
    this.index.add({ slot, text: this.count(slot, entry) });
  }

  /** Leaves an entry out of every later search. */
  remove(slot: number): void {
    if (!this.index.has(slot)) return;
    this.index.discard(slot);
    for (const term of this.termsOf.get(slot) ?? []) {
      const count = (this.documentFrequency.get(term) ?? 1) - 1;
      if (count > 0) this.documentFrequency.set(term, count);
      else this.documentFrequency.delete(term);
    }
    this.termsOf.delete(slot);
  }

  has(slot: number): boolean {
    return this.index.has(slot);
  }

  /** The distinct terms of an indexed entry. */
  terms(slot: number): ReadonlyArray<string> {
    return this.termsOf.get(slot) ?? [];
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
    const sorted = terms.filter((term) => (this.documentFrequency.get(term) ?? 0) > 0).sort((a, b) => this.documentFrequency.get(a)! - this.documentFrequency.get(b)!);
    const kept: string[] = [];
    let postings = 0;
    for (const term of sorted) {
      const frequency = this.documentFrequency.get(term)!;
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
    const documents = this.index.documentCount;
    let covered = 0;
    for (const term of queryTerms) {
      if (!has.has(term)) continue;
      const frequency = this.documentFrequency.get(term) ?? 0;
      covered += Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
    }
    return covered;
  }

  /** Calls `found` with the slot and BM25+ score of every entry matching any of `terms` (index terms). */
  search(terms: ReadonlyArray<string>, found: (slot: number, score: number) => void): void {
    if (terms.length === 0) return;
    for (const result of this.index.search({ queries: [...terms], combineWith: 'OR' })) found(result.id as number, result.score);
  }

  /** Counts an entry's terms in; returns its terms joined by spaces (what the index reads). */
  private count(slot: number, entry: IndexedText): string {
    const sequence: string[] = [];
    const distinct = new Set<string>();
    for (const token of recallTokens(entry.text)) {
      const term = recallTerm(token);
      if (term === null) continue;
      distinct.add(term);
      sequence.push(term);
    }
    const list = [...distinct];
    this.termsOf.set(slot, list);
    for (const term of list) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    return sequence.join(' ');
  }
}

function splitTerms(text: string): string[] {
  return text.length === 0 ? [] : text.split(' ');
}

function keepTerm(term: string): string {
  return term;
}
