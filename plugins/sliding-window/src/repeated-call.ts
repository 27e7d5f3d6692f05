import type { ChatMessage, LLMPayload, ToolDefinition } from '@ctxkit/core';

/** The arguments of one composition, as a repeat is recognised by. */
export interface ComposeCall {
  history: ReadonlyArray<ChatMessage>;
  systemPrompt: string;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  collapse: boolean;
}

/**
 * The previous composition, so that a repeat call with nothing new (the same history array, neither
 * grown nor its last message replaced, and the same prompt, tools, dynamic context and collapse
 * option) returns the previous payload without composing it again.
 */
export class RepeatedCall {
  private last: { call: ComposeCall; length: number; lastMessage: ChatMessage | undefined; payload: LLMPayload } | undefined;

  /** A copy of the previous payload when `call` repeats the previous call, else `undefined`. */
  payloadFor(call: ComposeCall): LLMPayload | undefined {
    const last = this.last;
    if (last === undefined) return undefined;
    const { history } = call;
    const previous = last.call;
    const same =
      previous.history === history &&
      last.length === history.length &&
      last.lastMessage === history[history.length - 1] &&
      previous.systemPrompt === call.systemPrompt &&
      previous.tools === call.tools &&
      previous.ragContext === call.ragContext &&
      previous.collapse === call.collapse;
    return same ? copyOf(last.payload) : undefined;
  }

  /** Remembers `payload` as the answer to `call`. */
  remember(call: ComposeCall, payload: LLMPayload): void {
    this.last = { call, length: call.history.length, lastMessage: call.history[call.history.length - 1], payload: copyOf(payload) };
  }

  /** Forgets the previous call. */
  clear(): void {
    this.last = undefined;
  }
}

/** A payload whose message and tool lists the caller may change without changing this one. */
function copyOf(payload: LLMPayload): LLMPayload {
  return { messages: payload.messages.slice(), tools: payload.tools.slice(), stats: payload.stats };
}
