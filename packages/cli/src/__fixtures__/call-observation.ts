import type { CallObservation } from '../lab/call-observation';
import { nothingSent } from '../lab/nothing-sent';

/**
 * An observation for report tests: call `fields.call` of record `r1` at a 4096-token window
 * (budget 3175, everything 1000 tokens, 0.5 ms), sending nothing until `fields` says what it sent.
 */
export function callObservation(fields: Partial<CallObservation> & Pick<CallObservation, 'call'>): CallObservation {
  return {
    recordId: 'r1',
    historyLength: fields.call + 1,
    everythingTokens: 1000,
    window: 4096,
    budget: 3175,
    milliseconds: 0.5,
    factsActive: 0,
    fitsWhole: true,
    ...nothingSent(),
    ...fields,
  };
}
