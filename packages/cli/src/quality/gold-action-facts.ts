import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';

/** The origin the bundled tau-bench data gives facts derived from gold-action arguments. */
export const GOLD_ACTION_ORIGIN = 'derived:gold-action-argument';

const QUESTION = /^Gold action \d+ \((\w+)\)/;

/**
 * tau-bench facts: each is an argument of a gold action (`Gold action <i> (<function>): value of
 * <path>?`). It is needed in the payload composed just before the agent first calls that function
 * (history ending right before that assistant message), and matched verbatim. Facts whose function
 * the agent never calls, or whose evidence is not before that call, are left out.
 */
export function goldActionFacts(record: TranscriptRecord): NeededFact[] {
  const firstCall = new Map<string, number>();
  record.messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    for (const call of message.tool_calls ?? [])
      if (!firstCall.has(call.function.name)) firstCall.set(call.function.name, index);
  });
  const facts: NeededFact[] = [];
  for (const fact of record.facts ?? []) {
    if (fact.origin !== GOLD_ACTION_ORIGIN || typeof fact.answer !== 'string' || fact.answer.length === 0) continue;
    const fn = QUESTION.exec(fact.question)?.[1];
    const neededAt = fn === undefined ? undefined : firstCall.get(fn);
    if (neededAt === undefined) continue;
    const evidence = (fact.evidence_message_indexes ?? []).filter((index) => index < neededAt);
    if (evidence.length === 0) continue;
    facts.push({ question: fact.question, answer: fact.answer, neededAt, match: 'verbatim', evidence });
  }
  return facts;
}
