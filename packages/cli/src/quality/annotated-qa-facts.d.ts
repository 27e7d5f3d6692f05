import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';
/** The origin LoCoMo's question/answer annotations carry in the prepared data. */
export declare const ANNOTATED_QA_ORIGIN = "annotated:locomo-qa";
/**
 * Question/answer annotations about a whole conversation (LoCoMo): every question with a non-null
 * answer is asked after the conversation, so the fact is needed in the payload composed at `end`
 * (after the last message) and matched normalised (lowercase, no punctuation, single spaces).
 */
export declare function annotatedQaFacts(record: TranscriptRecord, end: number): NeededFact[];
//# sourceMappingURL=annotated-qa-facts.d.ts.map