import type { ChatMessage } from '@ctxkit/core';

/**
 * How a payload continues the previous one of its conversation: after its own leading system
 * messages, it repeats a run of the previous payload's conversation messages (the same objects, in
 * order; the run may start after the previous payload's first ones, when the oldest were left out)
 * and then holds messages of its own.
 */
export interface PayloadContinuation {
  /** Leading system messages of the new payload: the run starts right after them. */
  bodyStart: number;
  /** Where the run starts in the previous payload. */
  previousStart: number;
  /** Messages in the run (at least 1): `next[bodyStart + i] === previous[previousStart + i]`. */
  length: number;
}

/**
 * A copy of a payload's messages for a later continuation check, so that a strategy that reuses and
 * changes its payload array is compared with what was sent. A frozen array is copied by spreading:
 * V8 slices frozen arrays, and reads them, element by element on a slow path.
 */
export function keptMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): ReadonlyArray<Readonly<ChatMessage>> {
  return Object.isFrozen(messages) ? [...messages] : messages.slice();
}

/** How many system messages the payload starts with. */
export function leadingSystemMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
  let index = 0;
  while (index < messages.length && messages[index]!.role === 'system') index++;
  return index;
}

/**
 * The run of messages `next` shares with `previous` (see {@link PayloadContinuation}), found by
 * message identity: the first conversation message of `next` is looked for in `previous` from
 * `previousBodyStart` (where its conversation messages start), then both are read side by side
 * while they hold the same objects. Costs one comparison of references per shared message; reads no
 * message's content. `undefined` when `next` has no conversation message or its first one is not in
 * `previous`.
 */
export function payloadContinuation(
  previous: ReadonlyArray<Readonly<ChatMessage>>,
  previousBodyStart: number,
  next: ReadonlyArray<Readonly<ChatMessage>>,
): PayloadContinuation | undefined {
  const bodyStart = leadingSystemMessages(next);
  if (bodyStart === next.length) return undefined;
  const first = next[bodyStart]!;
  const previousStart =
    previous[previousBodyStart] === first ? previousBodyStart : previous.indexOf(first, previousBodyStart + 1);
  if (previousStart < 0) return undefined;
  let length = 1;
  while (
    bodyStart + length < next.length &&
    previousStart + length < previous.length &&
    next[bodyStart + length] === previous[previousStart + length]
  )
    length++;
  return { bodyStart, previousStart, length };
}
