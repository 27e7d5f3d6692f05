import type { ITokenCounter } from '@ctxkit/core';

import { computedOnce } from '../computed-once';
import type { Summarizer, SummarizerInput } from '../summarizer';
import {
  findTerms,
  informationScore,
  isKeyValue,
  statementWeight,
  type Term,
  type TermKind,
} from './information-score';
import { type InformationUnit, messageUnits } from './information-units';
import { comparisonTokens, isNearDuplicate } from './near-duplicates';
import {
  dateLine,
  keyValuesLine,
  namesLine,
  OFFLINE_SUMMARIZER_NAME,
  parseSummary,
  renderSummaryBody,
  summaryHeader,
  unitLine,
} from './summary-layout';

export { OFFLINE_SUMMARIZER_NAME } from './summary-layout';

/** Share of the token cap set aside for the "Key values" line (values not already in a kept line). */
const KEY_VALUES_SHARE = 0.2;
/** Share of the token cap for the "Names" line (people, places, titles no kept line holds). */
const NAMES_SHARE = 0.15;
/** Label weights: what the user said (constraints, requests) matters most; named speakers weigh alike. */
const LABEL_WEIGHT: Readonly<Record<string, number>> = { user: 1.5, system: 1.2 };
/** Previous summary lines get a small bonus, so that the summary does not churn. */
const CARRY_OVER_BONUS = 1.1;
/** The newest unit weighs this much more than the oldest (a mild preference for recent turns). */
const RECENCY_BONUS = 0.15;
const KIND_RANK: Readonly<Record<TermKind, number>> = {
  id: 0,
  date: 1,
  amount: 2,
  code: 3,
  number: 4,
  entity: 5,
  word: 6,
};

/** What one text yields, remembered across folds (the same lines are read back fold after fold). */
interface TextAnalysis {
  terms: Term[];
  /** Ids, dates, amounts, codes and numbers: a near-duplicate may only replace a unit that has them all. */
  values: string[];
  tokens: Set<string>;
}

const ANALYSIS_CACHE_LIMIT = 20_000;
const analysisCache = new Map<string, TextAnalysis>();

function analyse(text: string): TextAnalysis {
  return computedOnce(analysisCache, text, analysisOf);
}

/** The analysis of `text` (the cache starts over when it is full). */
function analysisOf(text: string): TextAnalysis {
  const terms = findTerms(text);
  const analysis: TextAnalysis = {
    terms,
    values: terms.filter((term) => term.kind !== 'word' && term.kind !== 'entity').map((term) => term.text),
    tokens: comparisonTokens(text),
  };
  if (analysisCache.size >= ANALYSIS_CACHE_LIMIT) analysisCache.clear();
  return analysis;
}

/** A value offered to an index line: lower `priority` is kept first; `order` is its place on the line. */
interface IndexValue {
  value: string;
  priority: number;
  order: number;
}

/** A unit scored against the others. */
interface ScoredUnit extends InformationUnit {
  analysis: TextAnalysis;
  carried: boolean;
  score: number;
}

/** A unit that survived the collapse of near-duplicates, with the tokens its line costs. */
interface Candidate extends ScoredUnit {
  cost: number;
}

/** True when `kept` says what `dropped` says, with every id, date and number of it. */
function covers(kept: ScoredUnit, dropped: ScoredUnit): boolean {
  return (
    dropped.analysis.values.every((value) => kept.text.includes(value)) &&
    isNearDuplicate(kept.analysis.tokens, dropped.analysis.tokens)
  );
}

/**
 * Collapses repeats and near-repeats; of two, the higher-scoring one stays (the earlier on a tie).
 * Lines carried from the previous summary were compared when they were kept, so only new units are
 * compared with every other (a fold stays fast however long the summary).
 */
function collapseNearDuplicates(candidates: ScoredUnit[]): ScoredUnit[] {
  const kept: ScoredUnit[] = [];
  const exact = new Map<string, number>();
  for (const candidate of candidates) {
    const key = candidate.text.toLowerCase();
    const same = exact.get(key);
    if (same !== undefined) {
      if (candidate.score > kept[same]!.score) kept[same] = candidate;
      continue;
    }
    let replaced = false;
    // Carried lines come first in `candidates`; only new units are compared with the others.
    for (let i = 0; !candidate.carried && i < kept.length; i++) {
      const other = kept[i]!;
      if (candidate.score > other.score ? covers(candidate, other) : covers(other, candidate)) {
        if (candidate.score > other.score) kept[i] = candidate;
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    exact.set(key, kept.length);
    kept.push(candidate);
  }
  return kept;
}

function byConversationOrder(a: InformationUnit, b: InformationUnit): number {
  return a.order - b.order || a.position - b.position;
}

/** Chooses units within a token budget, paying for each session's date line once. */
class Selection {
  readonly chosen = new Set<Candidate>();
  private readonly datesOpened = new Set<string>();

  constructor(
    private readonly counter: ITokenCounter,
    public remaining: number,
  ) {}

  private costOf(candidate: Candidate): number {
    const date = candidate.date;
    return (
      candidate.cost + (date !== undefined && !this.datesOpened.has(date) ? this.counter.count(dateLine(date)) + 1 : 0)
    );
  }

  /** Adds the candidate when it fits within `remaining` less `reserve`. */
  offer(candidate: Candidate, reserve = 0): boolean {
    if (this.chosen.has(candidate)) return false;
    const cost = this.costOf(candidate);
    if (cost > this.remaining - reserve) return false;
    this.remaining -= cost;
    this.chosen.add(candidate);
    if (candidate.date !== undefined) this.datesOpened.add(candidate.date);
    return true;
  }
}

/**
 * The offline extractive summarizer (no LLM): folds the previous summary and a batch of turns into
 * a new summary by picking the units (sentences, tool calls, slices of tool results) that carry the
 * most answerable information: ids, dates, amounts, codes, numbers, names and places, rare words;
 * first-person statements ("I adopted a dog") weigh more and questions less. Everything it keeps
 * is verbatim, so names, numbers, ids and dates survive exactly.
 *
 * Multi-session chats keep their session dates: each kept line is filed under the date of the
 * session it was said in (`[9 June, 2023]`), every session keeps at least its best line while the
 * cap allows, and relative expressions ("yesterday", "last week") get their calendar meaning added
 * in brackets. Repeats and near-repeats are collapsed. Each fold re-selects across the previous
 * summary's lines and the new ones by score, with a mild preference for recent turns, so the
 * summary never grows past its cap. A "Key values" line lists ids, dates, amounts and codes that no
 * kept line holds, within a share of the cap.
 *
 * Deterministic (same input, same summary) and within `maxTokens` by the given counter. It is
 * never presented as a language model: its name is {@link OFFLINE_SUMMARIZER_NAME} and `offline`
 * is true.
 *
 * @see docs/strategies/dynamic-summarization.md
 */
export class OfflineSummarizer implements Summarizer {
  readonly name = OFFLINE_SUMMARIZER_NAME;
  readonly model = 'none';
  readonly offline = true;

  async summarize(input: SummarizerInput): Promise<string> {
    return this.summarizeSync(input);
  }

  /** The same as {@link summarize}, synchronously (it does no I/O). */
  summarizeSync(input: SummarizerInput): string {
    const { counter, maxTokens } = input;
    const previous = parseSummary(input.previousSummary);
    const batch = messageUnits(input.messages, input.firstIndex, previous.sessionDate);
    const header = summaryHeader(input.firstIndex + input.messages.length - 1, batch.date);
    const candidates = this.scoreCandidates(previous.units, batch.units, counter);

    const selection = new Selection(counter, maxTokens - counter.count(header) - 1);
    const keyValueReserve = Math.floor(maxTokens * KEY_VALUES_SHARE);
    const ranked = [...candidates].sort((a, b) => b.score - a.score || byConversationOrder(a, b));
    // Every session keeps its best line first, so that its date stays in the summary.
    const bestOfSession = new Map<string, Candidate>();
    for (const candidate of ranked)
      if (candidate.date !== undefined && !bestOfSession.has(candidate.date))
        bestOfSession.set(candidate.date, candidate);
    for (const candidate of bestOfSession.values()) selection.offer(candidate, keyValueReserve);
    for (const candidate of ranked) selection.offer(candidate, keyValueReserve);

    // Key values and names no kept line holds, each line within its share of the cap.
    const keptText = [...selection.chosen]
      .map((candidate) => `${candidate.date ?? ''} ${candidate.label} ${candidate.text}`)
      .join('\n');
    const keyLine = this.indexLine(
      keyValuesLine,
      this.missingKeyValues(previous.keyValues, candidates, keptText),
      Math.min(keyValueReserve, selection.remaining),
      counter,
    );
    selection.remaining -= keyLine ? counter.count(keyLine) + 1 : 0;
    const nameLine = this.indexLine(
      namesLine,
      this.missingNames(previous.names, candidates, keptText),
      Math.min(Math.floor(maxTokens * NAMES_SHARE), selection.remaining),
      counter,
    );
    selection.remaining -= nameLine ? counter.count(nameLine) + 1 : 0;
    // What the index lines left over goes to more lines.
    for (const candidate of ranked) selection.offer(candidate);

    const chosen = [...selection.chosen].sort(byConversationOrder);
    // Line-wise counts can differ from the count of the whole text: drop the weakest until it fits.
    const render = (): string => [header, ...renderSummaryBody([keyLine, nameLine], chosen)].join('\n');
    let text = render();
    let tokens = counter.count(text);
    while (tokens > maxTokens && chosen.length > 0) {
      let weakest = 0;
      chosen.forEach((unit, index) => {
        if (unit.score < chosen[weakest]!.score) weakest = index;
      });
      chosen.splice(weakest, 1);
      text = render();
      tokens = counter.count(text);
    }
    // A cap too small for even the header gives an empty summary, which the strategy rejects.
    return tokens <= maxTokens ? text : '';
  }

  /**
   * Scores previous and new units together (rarity over both), collapses near-duplicates, and prices
   * the lines of the units that remain (only those can be chosen).
   */
  private scoreCandidates(
    carried: readonly InformationUnit[],
    fresh: readonly InformationUnit[],
    counter: ITokenCounter,
  ): Candidate[] {
    const units = [
      ...carried.map((unit) => ({ unit, carried: true })),
      ...fresh.map((unit) => ({ unit, carried: false })),
    ];
    const analyses = units.map(({ unit }) => analyse(unit.text));
    const documentFrequency = new Map<string, number>();
    for (const analysis of analyses) {
      const words = new Set(
        analysis.terms.filter((term) => term.kind === 'word').map((term) => term.text.toLowerCase()),
      );
      for (const word of words) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
    const last = Math.max(1, units.length - 1);
    const scored = units.map(({ unit, carried: isCarried }, index): ScoredUnit => {
      const analysis = analyses[index]!;
      const score =
        informationScore(analysis.terms, unit.text.length, documentFrequency, units.length) *
        (LABEL_WEIGHT[unit.label] ?? 1) *
        statementWeight(unit.text) *
        (isCarried ? CARRY_OVER_BONUS : 1) *
        (1 + (RECENCY_BONUS * index) / last);
      return { ...unit, analysis, carried: isCarried, score };
    });
    return collapseNearDuplicates(scored).map((unit) => ({ ...unit, cost: counter.count(unitLine(unit)) + 1 }));
  }

  /**
   * Ids, dates, amounts and codes seen that the kept text does not hold, most valuable kind first
   * (ids, then dates, amounts, codes); within a kind, previous key values first, then new ones in
   * order of appearance.
   */
  private missingKeyValues(
    previous: readonly string[],
    candidates: readonly Candidate[],
    keptText: string,
  ): IndexValue[] {
    const values = new Map<string, IndexValue>();
    for (const value of previous) {
      if (values.has(value) || keptText.includes(value)) continue;
      values.set(value, { value, priority: KIND_RANK[findTerms(value)[0]?.kind ?? 'code'], order: values.size });
    }
    for (const candidate of [...candidates].sort(byConversationOrder)) {
      for (const term of candidate.analysis.terms) {
        if (!isKeyValue(term) || term.isKey || values.has(term.text) || keptText.includes(term.text)) continue;
        values.set(term.text, { value: term.text, priority: KIND_RANK[term.kind], order: values.size });
      }
    }
    return [...values.values()];
  }

  /** Names (people, places, titles) seen that the kept text does not hold; the newest first. */
  private missingNames(previous: readonly string[], candidates: readonly Candidate[], keptText: string): IndexValue[] {
    const names = new Map<string, IndexValue>();
    const add = (name: string): void => {
      if (!names.has(name) && !keptText.includes(name))
        names.set(name, { value: name, priority: 0, order: names.size });
    };
    for (const name of previous) add(name);
    for (const candidate of [...candidates].sort(byConversationOrder)) {
      for (const term of candidate.analysis.terms) if (term.kind === 'entity' && !term.isKey) add(term.text);
    }
    return [...names.values()].map((name) => ({ ...name, priority: names.size - name.order }));
  }

  /** One index line (`Key values: …`, `Names: …`): values by priority within the budget, written in their order. */
  private indexLine(
    render: (values: readonly string[]) => string,
    values: readonly IndexValue[],
    budget: number,
    counter: ITokenCounter,
  ): string {
    const kept: IndexValue[] = [];
    let tokens = counter.count(render(['x'])) - 1;
    for (const entry of [...values].sort((a, b) => a.priority - b.priority || a.order - b.order)) {
      const cost = counter.count(entry.value) + 1;
      if (tokens + cost > budget) continue;
      tokens += cost;
      kept.push(entry);
    }
    kept.sort((a, b) => a.order - b.order);
    return render(kept.map((entry) => entry.value));
  }
}
