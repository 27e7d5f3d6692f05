import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';

/** The origin LoCoMo's question/answer annotations carry in the prepared data. */
export const ANNOTATED_QA_ORIGIN = 'annotated:locomo-qa';

/**
 * Question/answer annotations about a whole conversation (LoCoMo): every question with a non-null
 * answer is asked after the conversation, so the fact is needed in the payload composed at `end`
 * (after the last message) and matched normalised (lowercase, no punctuation, single spaces).
 */
export function annotatedQaFacts(record: TranscriptRecord, end: number): NeededFact[] {
  const facts: NeededFact[] = [];
  for (const fact of record.facts ?? []) {
    if (fact.origin !== ANNOTATED_QA_ORIGIN) continue;
    const answer = fact.answer as unknown;
    if (answer === null || answer === undefined) continue;
    const text = String(answer);
    if (text.trim().length === 0) continue;
    facts.push({
      question: fact.question,
      answer: text,
      neededAt: end,
      match: 'normalised',
      evidence: fact.evidence_message_indexes ?? [],
    });
  }
  return facts;
}
