import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';
/** The origin the bundled tau-bench data gives facts derived from gold-action arguments. */
export declare const GOLD_ACTION_ORIGIN = "derived:gold-action-argument";
/**
 * tau-bench facts: each is an argument of a gold action (`Gold action <i> (<function>): value of
 * <path>?`). It is needed in the payload composed just before the agent first calls that function
 * (history ending right before that assistant message), and matched verbatim. Facts whose function
 * the agent never calls, or whose evidence is not before that call, are left out.
 */
export declare function goldActionFacts(record: TranscriptRecord): NeededFact[];
//# sourceMappingURL=gold-action-facts.d.ts.map