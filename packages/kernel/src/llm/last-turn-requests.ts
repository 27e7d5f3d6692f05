import type { LLMCompletionRequest } from '@ctxkit/core';

/** How many conversations a client remembers the last request of; the least recently sent is forgotten first. */
export const REMEMBERED_CONVERSATIONS = 256;

/**
 * The last request body a client sent under each `cacheKey` (a conversation's turns), so that a
 * helper request sent under the same key with a `continuation` goes out as that body continued:
 * the same model, system prompt, tools and message objects, which serialize to the same bytes, and
 * the provider reads them from its prompt cache. Helper requests themselves are not remembered.
 */
export class LastTurnRequests<Body> {
  private readonly bodies = new Map<string, Body>();

  constructor(private readonly limit = REMEMBERED_CONVERSATIONS) {}

  /** Remembers `body` as the conversation's last turn when `request` is a turn (a key, no continuation). */
  record(request: LLMCompletionRequest, body: Body): void {
    if (request.cacheKey === undefined || request.continuation !== undefined) return;
    this.bodies.delete(request.cacheKey);
    this.bodies.set(request.cacheKey, body);
    if (this.bodies.size > this.limit) this.bodies.delete(this.bodies.keys().next().value as string);
  }

  /**
   * The last turn's body a helper `request` continues, or undefined when it is not a helper request or none was sent.
   */
  continued(request: LLMCompletionRequest): Body | undefined {
    if (request.cacheKey === undefined || request.continuation === undefined || request.continuation.length === 0)
      return undefined;
    return this.bodies.get(request.cacheKey);
  }
}
