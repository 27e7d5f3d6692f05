import type { TranscriptRecord } from '../lab/transcript-record';
import { ANNOTATED_QA_ORIGIN, annotatedQaFacts } from './annotated-qa-facts';
import { argumentFacts } from './argument-facts';
import { GOLD_ACTION_ORIGIN, goldActionFacts } from './gold-action-facts';
import type { NeededFact } from './needed-fact';
import { toolCallFacts } from './tool-call-facts';

/**
 * The facts of a recorded conversation, each with the moment it is needed. `lastCompose` is the
 * end of the last payload the replay composes (facts about the whole conversation are asked there).
 *
 * - tau-bench gold-action arguments: before the agent's first call of that function;
 * - annotated question/answer pairs (LoCoMo): after the whole conversation, normalised match;
 * - coding-agent runs (OpenHands, no annotated facts): derived from the tool calls (see {@link toolCallFacts});
 * - any other record without a `facts` field (a transcript a user brings): derived from its tool
 *   calls' arguments (see {@link argumentFacts}); `"facts": []` says it has none;
 * - any other fact with an answer and evidence: at the last compose after its evidence.
 */
export function neededFacts(record: TranscriptRecord, lastCompose: number): NeededFact[] {
  const facts = record.facts ?? [];
  if (facts.length === 0) {
    if (isCodingRun(record)) return toolCallFacts(record);
    return record.facts === undefined ? argumentFacts(record) : [];
  }
  const result: NeededFact[] = [...goldActionFacts(record), ...annotatedQaFacts(record, lastCompose)];
  for (const fact of facts) {
    if (fact.origin === GOLD_ACTION_ORIGIN || fact.origin === ANNOTATED_QA_ORIGIN) continue;
    if (typeof fact.answer !== 'string' || fact.answer.length === 0) continue;
    const evidence = fact.evidence_message_indexes ?? [];
    if (evidence.length === 0 || Math.max(...evidence) >= lastCompose) continue;
    result.push({ question: fact.question, answer: fact.answer, neededAt: lastCompose, match: 'verbatim', evidence });
  }
  return result;
}

/** A recorded coding-agent run (OpenHands): facts are derived from its tool calls. */
function isCodingRun(record: TranscriptRecord): boolean {
  return record.id.startsWith('openhands/') || (record.source ?? '').startsWith('OpenHands/');
}
