import { findPayloadProblems, groupAt, type ChatMessage, type PayloadProblem } from '@ctxkit/core';
import { leadingSystem, payloadContinuation } from './payload-continuation';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/**
 * Core's `findPayloadProblems` for the payloads of one session, reading what a payload adds to the
 * previous one instead of every message on every call.
 *
 * A payload whose conversation part (after its leading system messages) continues the last payload
 * found valid — it starts at one of that payload's messages and holds the same message objects from
 * there, the oldest possibly left out, then messages of its own — is checked from the start of the
 * tool-call unit where it stops sharing to its end: a tool result and its call, a misplaced system
 * message and an unknown role are about one message and its unit, so what lies before that point was
 * proven with the previous payload. A user message is looked for from the end back. Any other payload,
 * and any payload in which this finds a problem, is checked in full, so the problems returned are
 * always `findPayloadProblems`'s, with their indexes.
 *
 * Messages are recognised by identity (as token counts are): the strategy's copies are reused from
 * call to call and never changed. The previous payload is kept as a copy of its array.
 */
export class PayloadCheck {
  /** The last payload found valid, and where its conversation part starts. */
  private previous: { messages: Messages; bodyStart: number } | undefined;

  /** The problems `findPayloadProblems(messages)` finds. */
  problems(messages: Messages): PayloadProblem[] {
    if (this.continuesValid(messages)) {
      this.remember(messages);
      return [];
    }
    const problems = findPayloadProblems(messages);
    if (problems.length === 0) this.remember(messages);
    else this.previous = undefined;
    return problems;
  }

  /** True when `messages` continues the last valid payload and what it adds breaks no rule. */
  private continuesValid(messages: Messages): boolean {
    const previous = this.previous;
    if (!previous) return false;
    const continued = payloadContinuation(previous.messages, previous.bodyStart, messages);
    if (!continued || messages[continued.start]!.role === 'tool') return false;
    const { start, shared } = continued;
    // The unit where the payload stops sharing is grouped again from its start (a non-tool message
    // always starts a unit): the messages after it may answer, or fail to answer, its calls.
    const diverges = start + shared;
    let unit = diverges > start ? diverges - 1 : start;
    while (unit > start && messages[unit]!.role === 'tool') unit--;
    for (let index = diverges; index < messages.length; index++) {
      const role = messages[index]!.role as string;
      if (role !== 'user' && role !== 'assistant' && role !== 'tool') return false;
    }
    for (let index = unit; index < messages.length; ) {
      const group = groupAt(messages, index);
      if (group.kind === 'orphan-tool' || group.kind === 'incomplete-tool-exchange') return false;
      index = group.end;
    }
    for (let index = messages.length - 1; index >= start; index--) if (messages[index]!.role === 'user') return true;
    return false;
  }

  private remember(messages: Messages): void {
    this.previous = { messages: messages.slice(), bodyStart: leadingSystem(messages) };
  }
}
