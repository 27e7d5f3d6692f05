import type { ChatMessage } from '@ctxkit/core';

import { toAnthropicMessages } from './anthropic-adapter';
import { keptMessages, leadingSystemMessages, payloadContinuation } from './payload-continuation';
import type { ProviderName } from './provider-name';
import {
  findProviderProblems,
  loopThinkingLeftOut,
  type ProviderCheckContext,
  validateForProvider,
} from './validate-for-provider';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/** Anthropic merges consecutive messages of one side into one message: tool results are the user's side. */
function side(message: Readonly<ChatMessage>): string {
  return message.role === 'tool' ? 'user' : message.role;
}

/** True when the message certainly becomes at least one Anthropic content block (so nothing merges across it). */
function certainlyHasBlocks(message: Readonly<ChatMessage>): boolean {
  switch (message.role) {
    case 'tool':
      return true;
    case 'user':
      return typeof message.content === 'string' ? message.content !== '' : message.content.length > 0;
    case 'assistant':
      return (message.content !== null && message.content !== '') || (message.tool_calls?.length ?? 0) > 0;
    default:
      return false;
  }
}

/**
 * True when Anthropic's adapter certainly starts a new message at `index`, merging nothing across it:
 * the message there is not a tool result, and it and the one before become blocks of different sides.
 */
function startsAnthropicMessage(messages: Messages, index: number): boolean {
  const before = messages[index - 1]!;
  const at = messages[index]!;
  return at.role !== 'tool' && certainlyHasBlocks(before) && certainlyHasBlocks(at) && side(before) !== side(at);
}

/** True when an assistant message carries reasoning items (thinking, on the safe side). */
function mayThink(messages: Messages): boolean {
  return messages.some((message) => message.role === 'assistant' && (message.reasoning?.length ?? 0) > 0);
}

function hasUser(messages: Messages, from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (messages[index]!.role === 'user') return true;
  return false;
}

/**
 * The provider validity check of one conversation's payloads (`validateForProvider`), reading what
 * a payload adds to the previous one rather than every message on every call.
 *
 * A payload that continues the last payload found valid (the same message objects after its system
 * messages, the oldest possibly left out, then messages of its own; see `payloadContinuation`) is
 * checked from the start of the last tool exchange it shares with that payload to its end: the rules
 * are about a message and its neighbours (a call and its results, role order, what follows a
 * reasoning item), so what lies before that point was proven with the previous payload. What is
 * not local is looked at too: a user message somewhere in the payload, and, for Anthropic, whether
 * the conversation thinks when the payload ends inside a tool loop. For Anthropic, whose adapter
 * merges neighbouring messages, the check also starts where no merge crosses, and a payload whose
 * oldest messages changed is checked in full.
 *
 * Any other payload (the first one, a compacted or rewritten history, a window that starts
 * elsewhere) is checked in full, and so is any payload in which the partial check finds a problem:
 * the error is always `validateForProvider`'s, listing every problem with its index.
 *
 * Messages are recognised by identity, as the token counts are: payload messages are immutable by
 * contract (the kernel freezes its history; a strategy's own copies, such as mode A's collapsed
 * results, are reused unchanged). The previous payload is kept as a copy of its array, so a
 * strategy that reuses and changes its payload array is still checked against what was sent.
 */
export class IncrementalProviderCheck {
  private previous: Messages = [];
  private previousBodyStart = 0;
  /** Whether an assistant message of the previous payload may carry thinking (kept on the safe side). */
  private previousMayThink = false;

  constructor(readonly provider: ProviderName) {}

  /**
   * Checks one composed payload's messages, as `validateForProvider` does. With a thinking binding in
   * `context` (Anthropic), its rule is read over the whole payload: a prefix can change anywhere.
   * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) listing every problem found
   */
  check(messages: Messages, context: ProviderCheckContext = {}): void {
    const partial = this.partialCheck(messages);
    const bindingHolds =
      this.provider !== 'anthropic' ||
      !context.thinkingBinding ||
      context.thinkingBinding.findProblems(messages, context.tools ?? []).length === 0;
    if (partial !== undefined && bindingHolds) {
      this.remember(messages, partial.bodyStart, this.previousMayThink || partial.tailMayThink);
      return;
    }
    validateForProvider(this.provider, messages, context);
    this.remember(messages, leadingSystemMessages(messages), this.provider === 'anthropic' && mayThink(messages));
  }

  private remember(messages: Messages, bodyStart: number, thinks: boolean): void {
    this.previous = keptMessages(messages);
    this.previousBodyStart = bodyStart;
    this.previousMayThink = thinks;
  }

  /**
   * The check of what is new when the payload continues the previous one; `undefined` when it must be checked in full.
   */
  private partialCheck(messages: Messages): { bodyStart: number; tailMayThink: boolean } | undefined {
    if (this.previous.length === 0) return undefined;
    const run = payloadContinuation(this.previous, this.previousBodyStart, messages);
    if (!run) return undefined;
    const { bodyStart } = run;
    // A payload may not open on a tool result (its call was left out).
    if (messages[bodyStart]!.role === 'tool') return undefined;
    const anthropic = this.provider === 'anthropic';
    if (anthropic && run.previousStart !== this.previousBodyStart) return undefined;
    // Back from the last shared message to the start of its exchange (its tool results belong to the assistant message
    // before them).
    let from = bodyStart + run.length - 1;
    while (from > bodyStart && messages[from]!.role === 'tool') from--;
    if (anthropic) while (from > bodyStart && !startsAnthropicMessage(messages, from)) from--;
    const tail = messages.slice(from);
    for (const problem of findProviderProblems(this.provider, tail)) {
      // The tail alone may hold no user message while the payload does.
      if (problem.rule !== 'no-user-message' || !hasUser(messages, bodyStart, from)) return undefined;
    }
    // Ending inside a tool loop without thinking is a problem when the conversation thinks, which the tail alone may
    // not show.
    if (
      anthropic &&
      this.previousMayThink &&
      !loopThinkingLeftOut(messages) &&
      this.endsInToolLoopWithoutThinking(tail)
    )
      return undefined;
    return { bodyStart, tailMayThink: anthropic && mayThink(tail) };
  }

  /**
   * True when the payload ends inside a tool loop whose assistant message does not start with a thinking block (a
   * problem only when the conversation thinks).
   */
  private endsInToolLoopWithoutThinking(tail: Messages): boolean {
    const converted = toAnthropicMessages(tail).messages;
    const last = converted[converted.length - 1];
    const loopStart = converted[converted.length - 2];
    if (
      !last ||
      last.role !== 'user' ||
      !last.content.some((block) => block.type === 'tool_result') ||
      loopStart?.role !== 'assistant'
    )
      return false;
    const first = loopStart.content.find((block) => block.type !== 'compaction')?.type;
    return first !== 'thinking' && first !== 'redacted_thinking';
  }
}
