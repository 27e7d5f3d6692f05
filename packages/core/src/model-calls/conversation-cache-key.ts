/**
 * The `cacheKey` of a conversation's requests (`<agentId>:<sessionId>`): the agent loop sends its
 * turns under it, and a strategy's helper request sent under the same key can go out as the last
 * turn's request continued (`LLMCompletionRequest.continuation`), reading its cached prompt.
 */
export function conversationCacheKey(agentId: string, sessionId: string): string {
  return `${agentId}:${sessionId}`;
}
