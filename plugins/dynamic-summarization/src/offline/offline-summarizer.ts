import type { Summarizer, SummarizerInput } from '../summarizer';
import { messageUnits, type InformationUnit } from './information-units';
import { findTerms, informationScore, isKeyValue, type Term, type TermKind } from './information-score';

/** The name the offline summarizer goes by in events, `stats.extra`, reports and docs. */
export const OFFLINE_SUMMARIZER_NAME = 'offline extractive summarizer (no LLM)';

/** Share of the token cap the "Key values" line may take. */
const KEY_VALUES_SHARE = 0.35;
/** Role weights: what the user said (constraints, requests) matters most. */
const ROLE_WEIGHT: Readonly<Record<string, number>> = { user: 1.5, assistant: 1, tool: 1, system: 1.2, summary: 1 };
/** Previous summary lines get a small bonus, so that the summary does not churn. */
const CARRY_OVER_BONUS = 1.1;
const KIND_RANK: Readonly<Record<TermKind, number>> = { id: 0, date: 1, amount: 2, code: 3, number: 4, entity: 5, word: 6 };

const HEADER_PREFIX = `[${OFFLINE_SUMMARIZER_NAME}:`;
const KEY_VALUES_PREFIX = 'Key values: ';
const UNIT_LINE = /^- (.+?) #(-?\d+): (.*)$/;

interface ScoredUnit extends InformationUnit {
  score: number;
  line: string;
}

/** Reads a previous summary (this summarizer's format, or any text) back into key values and units. */
function parsePreviousSummary(summary: string | null): { keyValues: string[]; units: InformationUnit[] } {
  const keyValues: string[] = [];
  const units: InformationUnit[] = [];
  if (!summary) return { keyValues, units };
  let position = 0;
  for (const raw of summary.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith(HEADER_PREFIX)) continue;
    if (line.startsWith(KEY_VALUES_PREFIX)) {
      keyValues.push(...line.slice(KEY_VALUES_PREFIX.length).split(', ').filter((value) => value.length > 0));
      continue;
    }
    const match = UNIT_LINE.exec(line);
    if (match) {
      const label = match[1]!;
      const role = label.split(' ')[0] ?? 'summary';
      units.push({ text: match[3]!, label: `${label} #${match[2]!}`, order: Number(match[2]), position: position++, role: role as InformationUnit['role'] });
    } else {
      // A summary written by another summarizer (an LLM): its lines are carried over as they are.
      units.push({ text: line.replace(/^[-*]\s+/, ''), label: 'earlier summary #-1', order: -1, position: position++, role: 'summary' });
    }
  }
  return { keyValues, units };
}

/** Labels carry the history index (`user #3`), so a later fold can read the line back. */
function unitLine(unit: InformationUnit): string {
  return `- ${unit.label}: ${unit.text}`;
}

/**
 * The offline extractive summarizer (no LLM): folds the previous summary and a batch of turns into
 * a new summary by picking the units (sentences, tool calls, slices of tool results) that carry the
 * most information, scored by ids, dates, amounts, codes, numbers, named entities and rare words.
 * Everything it keeps is verbatim, so names, numbers, ids and dates survive exactly; a "Key values"
 * line lists every id, date, amount and code seen, oldest first, within a share of the cap.
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
    const lastIndex = input.firstIndex + input.messages.length - 1;
    const header = `${HEADER_PREFIX} history messages 0-${lastIndex}]`;
    const previous = parsePreviousSummary(input.previousSummary);
    const fresh = messageUnits(input.messages, input.firstIndex);

    // Dedupe by text; the earliest occurrence wins.
    const seen = new Set<string>();
    const units: Array<InformationUnit & { terms: Term[]; carried: boolean }> = [];
    for (const [list, carried] of [[previous.units, true], [fresh, false]] as const) {
      for (const unit of list) {
        const key = unit.text.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        units.push({ ...unit, terms: findTerms(unit.text), carried });
      }
    }

    // Key values: previous ones first, then new ones in order of appearance.
    const values = new Map<string, { kind: TermKind; rank: number }>();
    let rank = 0;
    for (const value of previous.keyValues) {
      const kind = findTerms(value)[0]?.kind ?? 'code';
      if (!values.has(value)) values.set(value, { kind, rank: rank++ });
    }
    for (const unit of units) {
      for (const term of unit.terms) if (isKeyValue(term) && !term.isKey && !values.has(term.text)) values.set(term.text, { kind: term.kind, rank: rank++ });
    }

    let remaining = maxTokens - counter.count(header) - 1;
    const keyValueBudget = Math.floor(maxTokens * KEY_VALUES_SHARE);
    const keptValues: Array<[string, number]> = [];
    let keyValueTokens = counter.count(KEY_VALUES_PREFIX);
    const byPriority = [...values.entries()].sort((a, b) => KIND_RANK[a[1].kind] - KIND_RANK[b[1].kind] || a[1].rank - b[1].rank);
    for (const [value, info] of byPriority) {
      const cost = counter.count(value) + 1;
      if (keyValueTokens + cost > Math.min(keyValueBudget, remaining)) continue;
      keyValueTokens += cost;
      keptValues.push([value, info.rank]);
    }
    keptValues.sort((a, b) => a[1] - b[1]);
    const keyValuesLine = keptValues.length > 0 ? `${KEY_VALUES_PREFIX}${keptValues.map(([value]) => value).join(', ')}` : '';
    if (keyValuesLine) remaining -= counter.count(keyValuesLine) + 1;

    // Score units: document frequency of plain words over this batch.
    const documentFrequency = new Map<string, number>();
    for (const unit of units) {
      const words = new Set(unit.terms.filter((term) => term.kind === 'word').map((term) => term.text.toLowerCase()));
      for (const word of words) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
    const scored: ScoredUnit[] = units.map((unit) => ({
      ...unit,
      line: unitLine(unit),
      score:
        informationScore(unit.terms, unit.text.length, documentFrequency, units.length) *
        (ROLE_WEIGHT[unit.role] ?? 1) *
        (unit.carried ? CARRY_OVER_BONUS : 1),
    }));
    const ranked = [...scored].sort((a, b) => b.score - a.score || a.order - b.order || a.position - b.position);
    const chosen: ScoredUnit[] = [];
    for (const unit of ranked) {
      const cost = counter.count(unit.line) + 1;
      if (cost > remaining) continue;
      remaining -= cost;
      chosen.push(unit);
    }
    chosen.sort((a, b) => a.order - b.order || a.position - b.position);

    // Line-wise counts can differ from the count of the whole text: drop the weakest until it fits.
    const render = (): string => [header, ...(keyValuesLine ? [keyValuesLine] : []), ...chosen.map((unit) => unit.line)].join('\n');
    let text = render();
    while (counter.count(text) > maxTokens && chosen.length > 0) {
      let weakest = 0;
      chosen.forEach((unit, index) => {
        if (unit.score < chosen[weakest]!.score) weakest = index;
      });
      chosen.splice(weakest, 1);
      text = render();
    }
    // A cap too small for even the header gives an empty summary, which the strategy rejects.
    return counter.count(text) <= maxTokens ? text : '';
  }
}
