import type { RecallEntry } from '../contracts/recall-backend';
import { positionOf, type RecallIndex } from './recall-index';
import { recallTermsOf } from './recall-terms';

/**
 * Weights of the ranking, measured on LongMemEval_S and LoCoMo (docs/strategies/recall.md has the
 * grid): each feature below moved evidence-turn recall by at least a point on one of them and cost
 * none on the other.
 */
export const RECALL_RANKING = {
  /**
   * Weight of the turn before the newest user message in the query (what "it" or "that" refer to),
   * used only when the newest message alone has fewer than {@link thinQueryTerms} searchable terms
   * ("and the second one?"): added to a full question it cost 7 points of evidence recall on
   * LongMemEval_S at 4,000 tokens.
   */
  previousTurnWeight: 0.3,
  /** A newest message with fewer searchable terms than this is too thin to search on alone. */
  thinQueryTerms: 2,
  /** Pseudo-relevance feedback: the best entries' shared terms searched again, at this weight. */
  feedbackWeight: 0.3,
  /**
   * Entries ranked further (neighbours, episodes) at most: the best by words. More than any recall
   * block holds, and what keeps a turn's cost flat on long histories.
   */
  maxCandidates: 400,
  /**
   * Entries less relevant than this share of the best one are not recalled: a turn that shares one
   * common word with the question is not worth its tokens, however much room is left.
   */
  minRelevance: 0.02,
  /** How many of the best entries feed the feedback terms. */
  feedbackEntries: 3,
  /** At most this many feedback terms, those most of the best entries share. */
  feedbackTerms: 10,
  /** A short turn borrows this share of its best neighbour's score (a reply's meaning is in what it answers). */
  neighbourWeight: 0.3,
  /** Turns of at most this many tokens borrow the whole neighbour weight; longer ones proportionally less. */
  neighbourShortTokens: 40,
  /** An entry's score grows by up to this factor times its episode's best score over the overall best. */
  episodeBoost: 4,
  /** Turns more than this far apart in time (or in different sessions) belong to different episodes. */
  episodeGapMs: 30 * 60 * 1000,
} as const;

/** One entry ranked for a query. */
export interface RankedEntry {
  entry: RecallEntry;
  /** Relevance in [0, 2]: words (0 to 1) plus meaning (0 to 1, with vectors). */
  relevance: number;
}

/** What {@link rankRecall} ranks with. */
export interface RecallQuery {
  /** The newest user message's text. */
  text: string;
  /** The turn before it (weighted lower). */
  previous?: string;
  /** The query's vector, when an embedder answered in time. */
  vector?: { model: string; values: ReadonlyArray<number> };
  /**
   * The question's matches by the store's own search (a database's full-text search), in place of
   * the in-memory index's; `previousFound` the same for the turn before a thin question.
   */
  found?: Map<string, number>;
  previousFound?: Map<string, number>;
  /** Only entries for which this holds are ranked (what the window does not hold already). */
  eligible(entry: RecallEntry): boolean;
  /** Tokens an entry takes in the payload (for the neighbour rule). */
  tokensOf(entry: RecallEntry): number;
}

/**
 * The entries of `index` relevant to `query`, most relevant first. By words: BM25+ over stemmed
 * terms, the query's best entries' shared terms searched again (pseudo-relevance feedback), short
 * turns lifted by their neighbours, and every entry lifted by the best match of its episode (turns
 * close in time are about the same things). By meaning, where vectors exist: cosine similarity above
 * the candidates' mean, scaled to [0, 1] and added.
 */
export function rankRecall(index: RecallIndex, query: RecallQuery): RankedEntry[] {
  const weights = RECALL_RANKING;
  const lexical = index.lexical;
  const scores = new Map<string, number>();
  const add = (found: Map<string, number>, weight: number): void => {
    for (const [id, score] of found) {
      const entry = index.entry(id);
      if (entry === undefined || !query.eligible(entry)) continue;
      scores.set(id, (scores.get(id) ?? 0) + weight * score);
    }
  };
  const queryTerms = lexical?.queryTerms(query.text) ?? [];
  add(query.found ?? lexical?.search(queryTerms) ?? new Map(), 1);
  // Thin by its own words, not by what the index holds: a full question about something never said is not thin.
  if (query.previous && isThin(query.text)) add(query.previousFound ?? lexical?.search(lexical.queryTerms(query.previous)) ?? new Map(), weights.previousTurnWeight);

  // Pseudo-relevance feedback (in memory only): terms most of the best entries share, that the query lacks.
  const best = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, weights.feedbackEntries);
  if (lexical !== undefined && best.length >= 2) {
    const counts = new Map<string, number>();
    const asked = new Set(queryTerms);
    for (const [id] of best) for (const term of lexical.terms(id)) if (!asked.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const feedback = [...counts].filter(([, count]) => count >= 2).sort((a, b) => b[1] - a[1]).slice(0, weights.feedbackTerms).map(([term]) => term);
    if (feedback.length > 0) add(lexical.search(lexical.usefulTerms(feedback)), weights.feedbackWeight);
  }

  if (scores.size > weights.maxCandidates) {
    const kept = [...scores].sort((a, b) => b[1] - a[1]).slice(0, weights.maxCandidates);
    scores.clear();
    for (const [id, score] of kept) scores.set(id, score);
  }

  // Neighbours: a short turn borrows from the better of the turns around it.
  const smoothed = new Map<string, number>();
  for (const id of scores.keys()) {
    const entry = index.entry(id)!;
    const list = index.sessionEntries(entry.sessionId);
    const at = positionOf(list, entry.from);
    for (const neighbour of [list[at - 1], entry, list[at + 1]]) {
      if (neighbour === undefined || smoothed.has(neighbour.id) || !query.eligible(neighbour)) continue;
      const position = neighbour === entry ? at : positionOf(list, neighbour.from);
      const around = Math.max(scores.get(list[position - 1]?.id ?? '') ?? 0, scores.get(list[position + 1]?.id ?? '') ?? 0);
      const share = weights.neighbourWeight * Math.min(1, weights.neighbourShortTokens / Math.max(1, query.tokensOf(neighbour)));
      const score = (scores.get(neighbour.id) ?? 0) + share * around;
      if (score > 0) smoothed.set(neighbour.id, score);
    }
  }

  // Episodes: runs of one session's turns close in time; each entry lifted by its episode's best.
  const episodeBest = new Map<string, number>();
  const episodeOf = new Map<string, string>();
  let overall = 0;
  for (const [id, score] of smoothed) {
    const key = index.episodeOf(id, weights.episodeGapMs);
    episodeOf.set(id, key);
    episodeBest.set(key, Math.max(episodeBest.get(key) ?? 0, score));
    overall = Math.max(overall, score);
  }
  const ranked = new Map<string, number>();
  for (const [id, score] of smoothed) ranked.set(id, score * (1 + (weights.episodeBoost * episodeBest.get(episodeOf.get(id)!)!) / overall));
  let top = 0;
  for (const score of ranked.values()) top = Math.max(top, score);

  const relevance = new Map<string, number>();
  for (const [id, score] of ranked) relevance.set(id, top > 0 ? score / top : 0);
  if (query.vector !== undefined) addMeaning(index, query, relevance);

  const out: RankedEntry[] = [];
  for (const [id, value] of relevance) if (value >= weights.minRelevance) out.push({ entry: index.entry(id)!, relevance: value });
  return out.sort((a, b) => b.relevance - a.relevance || a.entry.at - b.entry.at || a.entry.from - b.entry.from);
}

/** Whether a newest message is too thin to search on alone (fewer searchable words of its own than {@link RECALL_RANKING.thinQueryTerms}). */
export function isThin(text: string): boolean {
  return recallTermsOf(text).length < RECALL_RANKING.thinQueryTerms;
}

/** Adds each eligible entry's similarity to the query vector, above the mean and scaled to [0, 1]. */
function addMeaning(index: RecallIndex, query: RecallQuery, relevance: Map<string, number>): void {
  const { model, values } = query.vector!;
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm === 0) return;
  const similarities: Array<[string, number]> = [];
  for (const entry of allEntries(index)) {
    if (!query.eligible(entry)) continue;
    const stored = index.vector(entry.id);
    if (stored === undefined || stored.model !== model || stored.vector.length !== values.length || stored.norm === 0) continue;
    let dot = 0;
    for (let position = 0; position < values.length; position++) dot += stored.vector[position]! * values[position]!;
    similarities.push([entry.id, dot / (stored.norm * norm)]);
  }
  if (similarities.length === 0) return;
  let mean = 0;
  let max = -1;
  for (const [, similarity] of similarities) {
    mean += similarity;
    max = Math.max(max, similarity);
  }
  mean /= similarities.length;
  if (!(max > mean)) return;
  for (const [id, similarity] of similarities) {
    if (similarity <= mean) continue;
    relevance.set(id, (relevance.get(id) ?? 0) + (similarity - mean) / (max - mean));
  }
}

function* allEntries(index: RecallIndex): Iterable<RecallEntry> {
  for (const sessionId of index.sessionIds()) yield* index.sessionEntries(sessionId);
}
