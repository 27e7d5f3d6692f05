import type { ChatMessage } from '@ctxkit/core';

import type { ReadAgainst } from './payload-continuation';

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
 * `PreviousPayload`) costs the messages it left out and the ones it added, not its length.
 */
export class PayloadRefs {
  /** The count of the payload given last. */
  private previous: number | undefined;

  /**
   * The tool messages of `messages` that carry a ref. `against`: how `messages` continues the
   * payload counted last (`PreviousPayload.against`), when it does.
   */
  count(messages: Messages, against: ReadAgainst | undefined): number {
    let refs: number;
    if (this.previous !== undefined && against) {
      const { continued, previous } = against;
      const { start, from, shared } = continued;
      refs =
        this.previous -
        refsIn(previous, 0, from) -
        refsIn(previous, from + shared) +
        refsIn(messages, 0, start) +
        refsIn(messages, start + shared);
    } else refs = refsIn(messages);
    this.previous = refs;
    return refs;
  }
}
