import type { AssistantMessage, ChatMessage } from '@ctxkit/core';

import { fromResponsesOutput, type ResponsesInputItem, toResponsesInput } from './openai-responses-adapter';

/** What {@link ResponsesHistoryCache.sync} did. */
export type ResponsesSyncResult = 'unchanged' | 'appended' | 'rebuilt';

function fingerprint(message: Readonly<ChatMessage>): string {
  return JSON.stringify(message);
}

/**
 * The provider history cache of an OpenAI Responses conversation: the input items sent with each
 * request. New canonical messages are converted and appended; the model's output items are kept
 * verbatim (reasoning ids, encrypted content) so that they go back exactly as received.
 *
 * After compaction the cache must shrink with the history: replacing the view
 * messages alone does not shorten what is sent, and the old provider output items no longer match
 * the summarized history. {@link rebuild} therefore discards every item and converts the
 * compacted messages again; {@link sync} does it on its own whenever the history it is given is
 * not a continuation of what the cache holds.
 *
 * Call ids are made unique over everything the cache holds, as `toResponsesInput` does: appended
 * messages are converted with the whole synced history as context.
 */
export class ResponsesHistoryCache {
  private inputItems: ResponsesInputItem[] = [];
  private readonly synced: string[] = [];
  private history: ChatMessage[] = [];
  private rebuilds = 0;

  /** The input items to send, oldest first (a copy). */
  items(): ResponsesInputItem[] {
    return structuredClone(this.inputItems);
  }

  /** Number of canonical messages the items stand for. */
  get messageCount(): number {
    return this.synced.length;
  }

  /** How many times the cache was rebuilt from a history (compaction or divergence). */
  get rebuildCount(): number {
    return this.rebuilds;
  }

  /**
   * Discards every item, provider output items included, and converts `compactedMessages` afresh
   * The messages are not mutated.
   */
  rebuild(compactedMessages: ReadonlyArray<Readonly<ChatMessage>>): void {
    this.history = compactedMessages.slice() as ChatMessage[];
    this.inputItems = toResponsesInput(this.history);
    this.synced.length = 0;
    for (const message of this.history) this.synced.push(fingerprint(message));
    this.rebuilds++;
  }

  /** Appends canonical messages (user input, tool results) after what the cache holds. */
  appendMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): void {
    if (messages.length === 0) return;
    const before = toResponsesInput(this.history).length;
    this.history = [...this.history, ...(messages as ChatMessage[])];
    // Convert with the whole history so that call-id uniqueness holds across the boundary.
    const converted = toResponsesInput(this.history);
    this.inputItems.push(...converted.slice(before));
    for (const message of messages) this.synced.push(fingerprint(message));
  }

  /**
   * Appends the model's output items verbatim and returns the canonical assistant message they
   * stand for (append that message to the history you pass to {@link sync}).
   * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) for malformed output items
   */
  appendOutput(output: readonly unknown[]): AssistantMessage {
    const message = fromResponsesOutput(output);
    for (const item of output) {
      const value = item as Record<string, unknown>;
      // Output-only fields (status) are not accepted back as input; everything else goes as received.
      const { status: _status, ...rest } = value;
      if (value.type === 'message' || value.type === 'function_call' || value.type === 'reasoning') {
        this.inputItems.push(structuredClone(rest) as ResponsesInputItem);
      }
    }
    this.history = [...this.history, message];
    this.synced.push(fingerprint(message));
    return message;
  }

  /**
   * Brings the cache in line with `history`: nothing to do when it holds exactly that history,
   * appends when `history` continues it, rebuilds from `history` otherwise (after compaction, or
   * when a strategy changed earlier messages).
   */
  sync(history: ReadonlyArray<Readonly<ChatMessage>>): ResponsesSyncResult {
    const isContinuation =
      history.length >= this.synced.length && this.synced.every((key, index) => key === fingerprint(history[index]!));
    if (!isContinuation) {
      this.rebuild(history);
      return 'rebuilt';
    }
    if (history.length === this.synced.length) return 'unchanged';
    this.appendMessages(history.slice(this.synced.length));
    return 'appended';
  }
}
