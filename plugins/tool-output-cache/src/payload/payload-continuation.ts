import type { ChatMessage } from '@ctxkit/core';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/**
 * How a payload continues an earlier one: its conversation part (after its `start` leading system
 * messages) holds, from its first message on, `shared` messages that the earlier payload holds from
 * `from` on, the same objects (the earlier payload's oldest messages may be left out); what follows
 * them is the payload's own.
 */
export interface PayloadContinuation {
  start: number;
  from: number;
  shared: number;
}

/** Leading system messages of a payload (the system prompt, dynamic context, memory placed after it). */
export function leadingSystem(messages: Messages): number {
  let index = 0;
  while (index < messages.length && messages[index]!.role === 'system') index++;
  return index;
}

/**
 * Where `messages` continues `previous` (whose conversation part starts at `previousStart`), or
 * `undefined` when its first conversation message is not one of the previous payload's (or it has
 * none). Compares message objects only: linear in the shared part, no message is read.
 */
export function payloadContinuation(previous: Messages, previousStart: number, messages: Messages): PayloadContinuation | undefined {
  const start = leadingSystem(messages);
  if (start >= messages.length) return undefined;
  let from = previousStart;
  while (from < previous.length && previous[from] !== messages[start]) from++;
  if (from === previous.length) return undefined;
  let shared = 0;
  while (from + shared < previous.length && start + shared < messages.length && previous[from + shared] === messages[start + shared]) shared++;
  return { start, from, shared };
}

/** A payload read against the previous one: how it continues it, and that payload's messages. */
export interface ReadAgainst {
  continued: PayloadContinuation;
  previous: Messages;
}

/**
 * The session's previous payload (a copy of its array, so that a caller changing the array it was
 * given changes nothing here) and how the next one continues it: what `PayloadCheck` and
 * `PayloadRefs` read instead of the whole payload.
 */
export class PreviousPayload {
  private messages: Messages = [];
  private start = 0;

  /** How `messages` continues the previous payload; `undefined` when there is none or it does not. */
  against(messages: Messages): ReadAgainst | undefined {
    const continued = payloadContinuation(this.messages, this.start, messages);
    return continued && { continued, previous: this.messages };
  }

  /** `messages` is the previous payload from now on. */
  remember(messages: Messages): void {
    this.messages = messages.slice();
    this.start = leadingSystem(messages);
  }
}
