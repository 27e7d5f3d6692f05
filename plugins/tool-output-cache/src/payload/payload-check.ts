import { type ChatMessage } from '@ctxkit/core';
import { findPayloadProblems, groupAt, type PayloadProblem } from '@ctxkit/core/strategy-kit';

import type { PayloadContinuation, ReadAgainst } from './payload-continuation';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/**
 * Core's `findPayloadProblems` for the payloads of one session, reading what a payload adds to the
 * previous one instead of every message on every call.
 *
 * A payload whose conversation part continues the previous payload (see `PreviousPayload`), when
 * that one was found valid, is checked from the start of the tool-call unit where it stops sharing
 * to its end: a tool result and its call, a misplaced system message and an unknown role are about
 * one message and its unit, so what lies before that point was proven with the previous payload. A
 * user message is looked for from the end back. Any other payload, and any payload in which this
 * finds a problem, is checked in full, so the problems returned are always `findPayloadProblems`'s,
 * with their indexes.
 *
 * Messages are recognised by identity (as token counts are): the strategy's copies are reused from
 * call to call and never changed.
 */
export class PayloadCheck {
  /** The payload checked last was found valid. */
  private previousValid = false;

  /**
   * The problems `findPayloadProblems(messages)` finds. `against`: how `messages` continues the
   * payload this check was given last (`PreviousPayload.against`), when it does.
   */
  problems(messages: Messages, against: ReadAgainst | undefined): PayloadProblem[] {
    if (this.previousValid && against && addsNoProblem(messages, against.continued)) return [];
    const problems = findPayloadProblems(messages);
    this.previousValid = problems.length === 0;
    return problems;
  }
}

/** True when what `messages` adds to the valid payload it continues breaks no rule. */
function addsNoProblem(messages: Messages, continued: PayloadContinuation): boolean {
  const { start, shared } = continued;
  if (messages[start]!.role === 'tool') return false;
  // The unit where the payload stops sharing is grouped again from its start (a non-tool message
  // always starts a unit): the messages after it may answer, or fail to answer, its calls.
  const diverges = start + shared;
  let unit = diverges > start ? diverges - 1 : start;
  while (unit > start && messages[unit]!.role === 'tool') unit--;
  for (let index = diverges; index < messages.length; index++) {
    const role = messages[index]!.role as string;
    if (role !== 'user' && role !== 'assistant' && role !== 'tool') return false;
  }
  for (let index = unit; index < messages.length;) {
    const group = groupAt(messages, index);
    if (group.kind === 'orphan-tool' || group.kind === 'incomplete-tool-exchange') return false;
    index = group.end;
  }
  for (let index = messages.length - 1; index >= start; index--) if (messages[index]!.role === 'user') return true;
  return false;
}
