import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';
/**
 * The facts of a recorded conversation, each with the moment it is needed. `lastCompose` is the
 * end of the last payload the replay composes (facts about the whole conversation are asked there).
 *
 * - tau-bench gold-action arguments: before the agent's first call of that function;
 * - annotated question/answer pairs (LoCoMo): after the whole conversation, normalised match;
 * - coding-agent runs (OpenHands, no annotated facts): derived from the tool calls (see {@link toolCallFacts});
 * - any other fact with an answer and evidence: at the last compose after its evidence.
 */
export declare function neededFacts(record: TranscriptRecord, lastCompose: number): NeededFact[];
//# sourceMappingURL=needed-facts.d.ts.map