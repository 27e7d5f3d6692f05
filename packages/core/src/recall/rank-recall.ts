import { orderByKeyDescending, sortSlotsByScore } from './descending-order';
import type { LexicalMatches, LexicalRanker } from './lexical-ranker';
import { type IndexedEntry, positionOf, type RecallIndex } from './recall-index';
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
  /**
   * Entries down to this share of the best one may fill, after every relevant one, the room of
   * recent turns of an earlier episode than the current one (the user comes back after a pause):
   * those turns are no longer the work in progress. On LoCoMo at 16,000 tokens: 93.9% of the evidence
   * turns, from 92.6%; an agent at work (one episode) keeps its recent turns.
   */
  fillerRelevance: 0.002,
  /** How many of the best entries feed the feedback terms. */
  feedbackEntries: 3,
  /** At most this many feedback terms, those most of the best entries share. */
  feedbackTerms: 10,
  /**
   * The feedback terms match at most this many entries in all (the rarest terms first): on a
   * 10,000-message history it took 0.4 ms off a turn, and on LoCoMo it added 0.6 and 0.7 points of
   * evidence recall at 4,000 and 8,000 tokens (frequent feedback terms only add noise); LongMemEval_S
   * unchanged.
   */
  maxFeedbackPostings: 500,
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
  entry: IndexedEntry;
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
  /**
   * The current session and its turn: its entries are ranked only when they end by `currentTurn`
   * (the window holds the rest); every other session's are ranked.
   */
  currentSession: string;
  currentTurn: number;
  /** Tokens an entry takes in the payload (for the neighbour rule). */
  sizes: { estimateTokens(entry: IndexedEntry): number };
  /** Least relevance ranked (a share of the best); {@link RECALL_RANKING.minRelevance} when not given. */
  floor?: number;
}

/**
 * The entries of `index` relevant to `query`, most relevant first. By words: BM25+ over stemmed
 * terms, the query's best entries' shared terms searched again (pseudo-relevance feedback), short
 * turns lifted by their neighbours, and every entry lifted by the best match of its episode (turns
 * close in time are about the same things). By meaning, where vectors exist: cosine similarity above
 * the candidates' mean, scaled to [0, 1] and added.
 *
 * Each step is a small function of its own: a turn runs them soon after a conversation starts, and
 * the engine optimizes small functions within a few turns where one long function waited tens of
 * turns for its optimized code.
 */
export function rankRecall(index: RecallIndex, query: RecallQuery): RankedEntry[] {
  const weights = RECALL_RANKING;
  const lexical = index.lexical;
  const words = slotScores(index, query);
  const queryTerms = lexical?.queryTerms(query.text) ?? [];
  if (query.found) addFound(words, query.found, 1);
  else if (lexical) addMatches(words, lexical.search(queryTerms), 1);
  // Thin by its own words, not by what the index holds: a full question about something never said is not thin.
  if (query.previous && isThin(query.text)) {
    if (query.previousFound) addFound(words, query.previousFound, weights.previousTurnWeight);
    else if (lexical) addMatches(words, lexical.search(lexical.queryTerms(query.previous)), weights.previousTurnWeight);
  }
  // Pseudo-relevance feedback (in memory only): terms most of the best entries share, that the query lacks.
  if (lexical !== undefined) {
    const feedback = feedbackTerms(lexical, bestSlots(words.scored, words.scores, weights.feedbackEntries), queryTerms);
    if (feedback.length > 0)
      addMatches(
        words,
        lexical.search(lexical.usefulTerms(feedback, weights.maxFeedbackPostings)),
        weights.feedbackWeight,
      );
  }
  keepBest(words, weights.maxCandidates);

  const lifts = liftNeighbours(words);
  liftEpisodes(index, lifts);
  // Relevance by slot: the words' score over the best (0 to 1), plus meaning where vectors exist.
  const relevance = lifts.smoothed;
  const top = lifts.top;
  const { lifted } = lifts;
  for (let at = 0; at < lifted.length; at++) {
    const slot = lifted[at]!;
    relevance[slot] = top > 0 ? relevance[slot]! / top : 0;
  }
  if (query.vector !== undefined) addMeaning(index, query, relevance, lifted, words);

  const out: RankedEntry[] = [];
  const keys = new Float64Array(lifted.length);
  const floor = query.floor ?? weights.minRelevance;
  for (let at = 0; at < lifted.length; at++) {
    const slot = lifted[at]!;
    if (relevance[slot]! < floor) continue;
    keys[out.length] = relevance[slot]!;
    out.push({ entry: index.entryAt(slot)!, relevance: relevance[slot]! });
  }
  return mostRelevantFirst(out, keys);
}

/**
 * `ranked` most relevant first; of equal relevance, the earlier indexed, then the earlier in its
 * history (`relevances` beside it). Ordered by relevance without a comparison call (a broad question
 * ranks about a thousand entries), then each run of equal relevance, short, by time.
 */
function mostRelevantFirst(ranked: RankedEntry[], relevances: Float64Array): RankedEntry[] {
  orderByKeyDescending(ranked, relevances);
  let start = 0;
  for (let at = 1; at <= ranked.length; at++) {
    if (at < ranked.length && ranked[at]!.relevance === ranked[start]!.relevance) continue;
    if (at - start > 1) {
      const run = ranked.slice(start, at).sort(byTime);
      for (let offset = 0; offset < run.length; offset++) ranked[start + offset] = run[offset]!;
    }
    start = at;
  }
  return ranked;
}

/** The earlier indexed first, then the earlier in its history. */
function byTime(a: RankedEntry, b: RankedEntry): number {
  return a.entry.at - b.entry.at || a.entry.from - b.entry.from;
}

/**
 * A ranking's word scores by slot (arrays, not maps keyed by id: a turn's ranking touches a few
 * thousand entries), the slots scored in the order first scored, and which slots the query may rank.
 */
interface SlotScores {
  readonly index: RecallIndex;
  readonly query: RecallQuery;
  readonly capacity: number;
  readonly scores: Float64Array;
  scored: number[];
  /** By slot: 0 not asked yet, 1 eligible, 2 not. */
  readonly eligibility: Uint8Array;
}

/**
 * A turn's {@link SlotScores}: one object literal, not a class instance. The engine forgets the shape
 * of objects that live only during a turn once none has been alive for a few major collections (a
 * new conversation's index build runs several), and with it the optimized code of every function
 * that reads them; a literal's shape stays with the function that makes it.
 */
function slotScores(index: RecallIndex, query: RecallQuery): SlotScores {
  const capacity = index.capacity;
  return {
    index,
    query,
    capacity,
    scores: new Float64Array(capacity),
    scored: [],
    eligibility: new Uint8Array(capacity),
  };
}

function isEligible(words: SlotScores, slot: number): boolean {
  const { eligibility } = words;
  if (eligibility[slot] === 0) {
    const entry = words.index.entryAt(slot);
    const { currentSession, currentTurn } = words.query;
    eligibility[slot] = entry !== undefined && (entry.sessionId !== currentSession || entry.to <= currentTurn) ? 1 : 2;
  }
  return eligibility[slot] === 1;
}

/** Adds each match's weighted score to its slot's. */
function addMatches(words: SlotScores, matches: LexicalMatches, weight: number): void {
  const { slots, scores: matchScores } = matches;
  const { scores, scored, capacity } = words;
  for (let at = 0; at < slots.length; at++) {
    const slot = slots[at]!;
    if (slot >= capacity || !isEligible(words, slot)) continue;
    if (scores[slot] === 0) scored.push(slot);
    scores[slot] = scores[slot]! + weight * matchScores[slot]!;
  }
}

/** Adds the store's own search's matches (by id, in its order). */
function addFound(words: SlotScores, found: Map<string, number>, weight: number): void {
  const matches: LexicalMatches = { slots: [], scores: new Float64Array(words.capacity) };
  for (const [id, score] of found) {
    const slot = words.index.slotOf(id);
    if (slot === undefined || slot >= words.capacity) continue;
    matches.slots.push(slot);
    matches.scores[slot] = score;
  }
  addMatches(words, matches, weight);
}

/** Leaves only the `count` best scored slots (of equal scores, the first scored). */
function keepBest(words: SlotScores, count: number): void {
  if (words.scored.length <= count) return;
  const { scores } = words;
  sortSlotsByScore(words.scored, scores);
  for (const slot of words.scored.slice(count)) scores[slot] = 0;
  words.scored = words.scored.slice(0, count);
}

/** The terms most of the `best` entries share (at least two), that the query lacks. */
function feedbackTerms(
  lexical: LexicalRanker,
  best: ReadonlyArray<number>,
  queryTerms: ReadonlyArray<string>,
): string[] {
  if (best.length < 2) return [];
  const counts = new Map<string, number>();
  const asked = new Set(queryTerms);
  for (const slot of best)
    for (const term of lexical.terms(slot)) if (!asked.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const shared: Array<[string, number]> = [];
  for (const entry of counts) if (entry[1] >= 2) shared.push(entry);
  shared.sort((a, b) => b[1] - a[1]);
  const terms: string[] = [];
  for (let at = 0; at < shared.length && at < RECALL_RANKING.feedbackTerms; at++) terms.push(shared[at]![0]);
  return terms;
}

/** Scores after the neighbour and episode lifts, by slot, for the slots `lifted` lists. */
interface Lifts {
  smoothed: Float64Array;
  /** Each lifted slot's position in its session's entries. */
  positionOfSlot: Int32Array;
  lifted: number[];
  /** The best lifted score. */
  top: number;
}

/** Neighbours: a short turn borrows from the better of the turns around it. */
function liftNeighbours(words: SlotScores): Lifts {
  const { index, query, scores, scored, capacity } = words;
  const weights = RECALL_RANKING;
  const smoothed = new Float64Array(capacity);
  const positionOfSlot = new Int32Array(capacity);
  const lifted: number[] = [];
  for (let candidate = 0; candidate < scored.length; candidate++) {
    const entry = index.entryAt(scored[candidate]!)!;
    const list = index.sessionEntries(entry.sessionId);
    const slots = index.sessionSlots(entry.sessionId);
    const at = positionOf(list, entry.from);
    for (let position = at - 1; position <= at + 1; position++) {
      const neighbour = slots[position];
      if (neighbour === undefined || smoothed[neighbour]! > 0 || !isEligible(words, neighbour)) continue;
      const before = slots[position - 1];
      const after = slots[position + 1];
      const around = Math.max(before === undefined ? 0 : scores[before]!, after === undefined ? 0 : scores[after]!);
      const share =
        weights.neighbourWeight *
        Math.min(1, weights.neighbourShortTokens / Math.max(1, query.sizes.estimateTokens(list[position]!)));
      const score = scores[neighbour]! + share * around;
      if (score <= 0) continue;
      smoothed[neighbour] = score;
      positionOfSlot[neighbour] = position;
      lifted.push(neighbour);
    }
  }
  return { smoothed, positionOfSlot, lifted, top: 0 };
}

/**
 * Episodes: runs of one session's turns close in time; each lifted entry is lifted again by its
 * episode's best, and `lifts.top` becomes the best score.
 */
function liftEpisodes(index: RecallIndex, lifts: Lifts): void {
  const { smoothed, positionOfSlot, lifted } = lifts;
  const weights = RECALL_RANKING;
  // Each session's episode starts and best score by episode, looked up again only when the session
  // changes from one lifted entry to the next (a turn's are mostly one session's).
  const bestBySession = new Map<string, Map<number, number>>();
  let sessionId: string | undefined;
  let starts: ReadonlyArray<number> = [];
  let bestOf = new Map<number, number>();
  const episodeOf = new Float64Array(smoothed.length);
  let overall = 0;
  for (let at = 0; at < lifted.length; at++) {
    const slot = lifted[at]!;
    const entry = index.entryAt(slot)!;
    if (entry.sessionId !== sessionId) {
      sessionId = entry.sessionId;
      starts = index.episodeStartsOf(sessionId, weights.episodeGapMs);
      bestOf = bestBySession.get(sessionId) ?? new Map<number, number>();
      bestBySession.set(sessionId, bestOf);
    }
    const start = starts[positionOfSlot[slot]!] ?? -1;
    episodeOf[slot] = start;
    bestOf.set(start, Math.max(bestOf.get(start) ?? 0, smoothed[slot]!));
    overall = Math.max(overall, smoothed[slot]!);
  }
  let top = 0;
  sessionId = undefined;
  for (let at = 0; at < lifted.length; at++) {
    const slot = lifted[at]!;
    const entry = index.entryAt(slot)!;
    if (entry.sessionId !== sessionId) {
      sessionId = entry.sessionId;
      bestOf = bestBySession.get(sessionId)!;
    }
    smoothed[slot] = smoothed[slot]! * (1 + (weights.episodeBoost * bestOf.get(episodeOf[slot]!)!) / overall);
    top = Math.max(top, smoothed[slot]!);
  }
  lifts.top = top;
}

/**
 * The `count` slots of `slots` with the highest scores, best first; of equal scores the one listed
 * first (what a stable sort of the whole list would give, in one pass).
 */
function bestSlots(slots: ReadonlyArray<number>, scores: Float64Array, count: number): number[] {
  const best: number[] = [];
  for (const slot of slots) {
    const score = scores[slot]!;
    if (best.length === count && score <= scores[best[count - 1]!]!) continue;
    let at = Math.min(best.length, count - 1);
    while (at > 0 && score > scores[best[at - 1]!]!) at--;
    best.splice(at, 0, slot);
    if (best.length > count) best.pop();
  }
  return best;
}

/**
 * Whether a newest message is too thin to search on alone (fewer searchable words of its own than {@link
 * RECALL_RANKING.thinQueryTerms}).
 */
export function isThin(text: string): boolean {
  return recallTermsOf(text).length < RECALL_RANKING.thinQueryTerms;
}

/**
 * Adds each eligible entry's similarity to the query vector, above the mean and scaled to [0, 1];
 * entries it lifts from nothing join `lifted`.
 */
function addMeaning(
  index: RecallIndex,
  query: RecallQuery,
  relevance: Float64Array,
  lifted: number[],
  words: SlotScores,
): void {
  const { model, values } = query.vector!;
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm === 0) return;
  const similarities: Array<[number, number]> = [];
  for (let slot = 0; slot < index.capacity; slot++) {
    const entry = index.entryAt(slot);
    if (entry === undefined || !isEligible(words, slot)) continue;
    const stored = index.vector(entry.id);
    if (stored === undefined || stored.model !== model || stored.vector.length !== values.length || stored.norm === 0)
      continue;
    let dot = 0;
    for (let position = 0; position < values.length; position++) dot += stored.vector[position]! * values[position]!;
    similarities.push([slot, dot / (stored.norm * norm)]);
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
  for (const [slot, similarity] of similarities) {
    if (similarity <= mean) continue;
    if (relevance[slot] === 0) lifted.push(slot);
    relevance[slot] = relevance[slot]! + (similarity - mean) / (max - mean);
  }
}
