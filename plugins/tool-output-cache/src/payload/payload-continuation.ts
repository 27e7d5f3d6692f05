import type { ChatMessage } from '@ctxkit/core';
import type { PreviousPayload as ComposerPreviousPayload } from '@ctxkit/core/strategy-kit';

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
export function payloadContinuation(
  previous: Messages,
  previousStart: number,
  messages: Messages,
): PayloadContinuation | undefined {
  const start = leadingSystem(messages);
  if (start >= messages.length) return undefined;
  let from = previousStart;
  while (from < previous.length && previous[from] !== messages[start]) from++;
  if (from === previous.length) return undefined;
  let shared = 0;
  while (
    from + shared < previous.length &&
    start + shared < messages.length &&
    previous[from + shared] === messages[start + shared]
  )
    shared++;
  return { start, from, shared };
}

/** A payload read against the previous one: how it continues it, and that payload's messages. */
export interface ReadAgainst {
  continued: PayloadContinuation;
  previous: Messages;
}

/**
 * The session's previous payload, as the composer kept it, and how the next one continues it: what
 * `PayloadCheck` and `PayloadRefs` read instead of the whole payload. Nothing is copied or compared
 * here: the composer keeps its own copy of each payload it sent (which a caller changing the array it
 * was given does not change) and counts the leading messages the next one repeats, so a payload that
 * only appends costs nothing to relate; a window that slid is related by where the composer says it
 * continues the previous one (`PreviousPayload.window` of core's composer), else by a search over the copy.
 */
export class PreviousPayload {
  /** The payload read last: its length, its first and last message, and where its conversation part starts. */
  private remembered:
    | {
        length: number;
        first: Readonly<ChatMessage> | undefined;
        last: Readonly<ChatMessage> | undefined;
        start: number;
      }
    | undefined;

  /**
   * How `messages` continues the previous payload, given as the composer kept it (`sent`: its copy
   * and the leading messages `messages` repeats). `undefined` when there is none, when `sent` is not
   * the payload remembered last (another length, another first or last message), or when `messages`
   * does not continue it.
   */
  against(messages: Messages, sent: ComposerPreviousPayload | undefined): ReadAgainst | undefined {
    const remembered = this.remembered;
    if (remembered === undefined || sent === undefined) return undefined;
    const previous = sent.messages;
    if (
      previous.length !== remembered.length ||
      previous[0] !== remembered.first ||
      previous[previous.length - 1] !== remembered.last
    )
      return undefined;
    const { start } = remembered;
    // It repeats the system messages and the first conversation message: the run it shares starts there and ends where
    // the repeat does. Else the composer may know where its window continues the previous one (a window that slid).
    const slid = sent.window;
    const continued =
      sent.repeated > start
        ? { start, from: start, shared: sent.repeated - start }
        : slid !== undefined &&
            slid.shared > 0 &&
            slid.at === leadingSystem(messages) &&
            previous[slid.from] === messages[slid.at]
          ? { start: slid.at, from: slid.from, shared: slid.shared }
          : payloadContinuation(previous, start, messages);
    return continued && { continued, previous };
  }

  /** `messages` is the previous payload from now on (the next one is read against the composer's copy of it). */
  remember(messages: Messages): void {
    this.remembered = {
      length: messages.length,
      first: messages[0],
      last: messages[messages.length - 1],
      start: leadingSystem(messages),
    };
  }
}
