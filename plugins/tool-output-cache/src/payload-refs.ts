import type { ChatMessage } from '@ctxkit/core';
import { leadingSystem, payloadContinuation } from './payload-continuation';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/** Tool messages of `messages[from, to)` that carry a ref. */
export function refsIn(messages: Messages, from = 0, to = messages.length): number {
  let refs = 0;
  for (let index = from; index < to; index++) {
    const message = messages[index]!;
    if (message.role === 'tool' && message.output_ref) refs++;
  }
  return refs;
}

/**
 * The tool messages of a session's payloads that carry a ref (`stats.extra.toolOutputCache.refsInPayload`),
 * counted over what a payload changes from the previous one: a payload that continues it (see
 * {@link payloadContinuation}) costs the messages it left out and the ones it added, not its length.
 * The previous payload is kept as a copy of its array.
 */
export class PayloadRefs {
  private previous: { messages: Messages; start: number; refs: number } | undefined;

  /** The tool messages of `messages` that carry a ref; remembers `messages` as the previous payload. */
  count(messages: Messages): number {
    const previous = this.previous;
    const continued = previous && payloadContinuation(previous.messages, previous.start, messages);
    let refs: number;
    if (previous && continued) {
      const { start, from, shared } = continued;
      const before = previous.messages;
      refs = previous.refs - refsIn(before, 0, from) - refsIn(before, from + shared) + refsIn(messages, 0, start) + refsIn(messages, start + shared);
    } else refs = refsIn(messages);
    this.previous = { messages: messages.slice(), start: leadingSystem(messages), refs };
    return refs;
  }
}
