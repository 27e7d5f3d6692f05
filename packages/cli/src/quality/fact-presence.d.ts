import type { ChatMessage } from '@ctxkit/core';
import type { NeededFact } from './needed-fact';
/** The text of one payload, read once, checked against many facts. */
export interface PayloadFacts {
    /** True when the payload's text (message contents, tool-call names and arguments) holds the fact's answer. */
    holds(fact: NeededFact): boolean;
}
/** Reads a payload for fact checks; the normalised text is built only when a normalised fact asks. */
export declare function readPayloadFacts(messages: ReadonlyArray<ChatMessage>): PayloadFacts;
//# sourceMappingURL=fact-presence.d.ts.map