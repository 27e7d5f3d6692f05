import { type ChatMessage, type LLMPayload } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import type { NeededFact } from './needed-fact';

/**
 * True when a fact the payload does not hold is still one tool call away: a tool output that
 * brought it into the conversation is in the payload as a placeholder or view naming its cache
 * ref (`ref=<id>`), so the model can expand it (tool-output cache). `messages` is the whole record
 * (`messages[0]` the system prompt), so evidence indexes are history indexes plus one.
 */
export function isFactRecoverable(
  fact: NeededFact,
  payload: Pick<LLMPayload, 'messages' | 'stats'>,
  messages: ReadonlyArray<ChatMessage>,
): boolean {
  const named = namedRefs(payload.messages);
  if (named.size === 0) return false;
  for (const reduction of payload.stats.reductions) {
    if (reduction.recoverableFrom !== 'tool-output-cache' || !reduction.refs?.length) continue;
    const covers = fact.evidence.some((index) => index - 1 >= reduction.from && index - 1 < reduction.to);
    if (covers && reduction.refs.some((ref) => named.has(ref))) return true;
  }
  const callIds = new Set(
    fact.evidence
      .map((index) => messages[index])
      .flatMap((message) => (message?.role === 'tool' ? [message.tool_call_id] : [])),
  );
  return payload.messages.some(
    (message) =>
      message.role === 'tool' &&
      callIds.has(message.tool_call_id) &&
      message.output_ref !== undefined &&
      named.has(message.output_ref.id),
  );
}

/** The cache refs the payload's text names (`ref=<id>`). */
function namedRefs(messages: ReadonlyArray<ChatMessage>): Set<string> {
  const refs = new Set<string>();
  for (const message of messages) {
    for (const match of contentText(message.content).matchAll(/ref=([\w-]+)/g)) refs.add(match[1]!);
  }
  return refs;
}
