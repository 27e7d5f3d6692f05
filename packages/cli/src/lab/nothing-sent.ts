import type { CallObservation } from './call-observation';

/** The fields an observation measures on the payload sent. */
export type SentPayloadFields = Pick<
  CallObservation,
  | 'sentTokens'
  | 'available'
  | 'reduced'
  | 'dropped'
  | 'summarized'
  | 'trimmed'
  | 'compacted'
  | 'problems'
  | 'overBudget'
  | 'usageLevel'
  | 'sections'
  | 'factsPresent'
  | 'factsRecoverable'
  | 'repeatedPrefixTokens'
>;

/** Those fields for a call that sent no payload (the strategy rejected it): nothing sent, reduced, found or held. */
export function nothingSent(): SentPayloadFields {
  return {
    sentTokens: 0,
    available: 0,
    reduced: false,
    dropped: 0,
    summarized: 0,
    trimmed: 0,
    compacted: 0,
    problems: [],
    overBudget: false,
    usageLevel: 'ok',
    sections: { system: 0, tools: 0, dynamic: 0, memory: 0, history: 0 },
    factsPresent: 0,
    factsRecoverable: 0,
    repeatedPrefixTokens: 0,
  };
}
