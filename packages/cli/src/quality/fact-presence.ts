import type { ChatMessage } from '@ctxkit/core';

import { payloadText } from '../lab/payload-text';
import type { NeededFact } from './needed-fact';
import { normaliseText } from './normalise-text';

/** The text of one payload, read once, checked against many facts. */
export interface PayloadFacts {
  /** True when the payload's text (message contents, tool-call names and arguments) holds the fact's answer. */
  holds(fact: NeededFact): boolean;
}

/** Reads a payload for fact checks; the normalised text is built only when a normalised fact asks. */
export function readPayloadFacts(messages: ReadonlyArray<ChatMessage>): PayloadFacts {
  const text = payloadText(messages);
  let normalised: string | undefined;
  return {
    holds(fact) {
      if (fact.match === 'verbatim') return text.includes(fact.answer);
      normalised ??= ` ${normaliseText(text)} `;
      const answer = normaliseText(fact.answer);
      return answer.length > 0 && normalised.includes(answer);
    },
  };
}
