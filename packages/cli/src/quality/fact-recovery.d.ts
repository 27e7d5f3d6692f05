import { type ChatMessage, type LLMPayload } from '@ctxkit/core';
import type { NeededFact } from './needed-fact';
/**
 * True when a fact the payload does not hold is still one tool call away: a tool output that
 * brought it into the conversation is in the payload as a placeholder or view naming its cache
 * ref (`ref=<id>`), so the model can expand it (tool-output cache). `messages` is the whole record
 * (`messages[0]` the system prompt), so evidence indexes are history indexes plus one.
 */
export declare function isFactRecoverable(fact: NeededFact, payload: Pick<LLMPayload, 'messages' | 'stats'>, messages: ReadonlyArray<ChatMessage>): boolean;
//# sourceMappingURL=fact-recovery.d.ts.map