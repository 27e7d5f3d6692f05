import {
  type ChatMessage,
  type ComposeOptions,
  type IContextManager,
  type LLMPayload,
  type StrategyContext,
  type ToolDefinition,
} from '@ctxkit/core';
import {
  budgetFromConfig,
  contentText,
  type MemoryBlock,
  PayloadComposer,
  truncateToFit,
} from '@ctxkit/core/strategy-kit';

import { PinIndex } from './pin-index';
import type { PinnedMessagesConfig } from './pinned-messages-config';

/**
 * Pinned messages + sliding window: user or assistant messages marked important (a marker such as
 * `📌` or `[pin]` in their text) stay in a `<pinned_messages>` block right after the system prompt
 * however old they are, newest pins first within `maxPinnedShare` of the room; the rest of the budget
 * goes to the newest history by whole tool-call groups (core's `selectHistoryWindow`). What the
 * standard sliding window would forget first — an early "my booking code is X, don't lose it" — is
 * what this one keeps.
 */
export class PinnedMessagesStrategy implements IContextManager {
  private readonly composer: PayloadComposer;
  private readonly pins: PinIndex;

  constructor(
    private readonly config: PinnedMessagesConfig,
    private readonly context: StrategyContext,
  ) {
    this.pins = new PinIndex(config.pinMarkers);
    // The model's window from the registry, capped by maxContextTokens, less the output reservation and margin.
    const budget = budgetFromConfig(config, config.model, context.models);
    // Core's composer does the budget work: fixed sections, the block's share, the newest history, events.
    this.composer = new PayloadComposer({
      owner: context,
      model: config.model,
      counter: context.counter,
      budget: () => budget,
    });
  }

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<LLMPayload> {
    const pinned = this.pins.update(history);
    const layout = (before: number) =>
      this.composer.layout({
        systemPrompt,
        history,
        tools,
        ragContext,
        ...options,
        turn: this.pins.userMessages,
        memory: [this.pinnedBlock(history, pinned, before)],
        memoryShare: this.config.maxPinnedShare,
        extra: { pinnedIndexes: pinned.filter((index) => index < before), pinnedMessages: pinned.length },
      });
    // Two layouts: pins that the recent window keeps anyway leave the block, which frees room for the window.
    const first = layout(history.length);
    const outside = pinned.filter((index) => index < first.window.fromIndex).length;
    const composed = outside < pinned.length ? layout(first.window.fromIndex) : first;
    // The one sent is committed: the next call builds on it, and its events are emitted.
    this.composer.commit(composed, this.pins.userMessages);
    return composed.payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.pins.update(newHistory);
  }

  /** The `<pinned_messages>` block for pins older than `before`, shown oldest first with their history index. */
  private pinnedBlock(history: ReadonlyArray<ChatMessage>, pinned: readonly number[], before: number): MemoryBlock {
    const older = pinned.filter((index) => index < before);
    return {
      name: 'pinned messages',
      placement: 'after-system',
      content: this.pinnedText(history, older, Number.POSITIVE_INFINITY),
      shrink: (maxTokens) => this.pinnedText(history, older, maxTokens) || undefined,
    };
  }

  /** Newest pins first while they fit `maxTokens` (each pin cut to half of it at most); '' when none fits. */
  private pinnedText(history: ReadonlyArray<ChatMessage>, pins: readonly number[], maxTokens: number): string {
    const counter = this.context.counter;
    const lines: string[] = [];
    let tokens = counter.count('<pinned_messages>\n</pinned_messages>');
    for (let at = pins.length - 1; at >= 0; at--) {
      const index = pins[at]!;
      const message = history[index]!;
      const text = Number.isFinite(maxTokens)
        ? truncateToFit(contentText(message.content), {
            kind: 'head',
            maxTokens: Math.max(16, Math.floor(maxTokens / 2)),
            counter,
          }).text
        : contentText(message.content);
      const line = `[${message.role}, message ${index}] ${text}`;
      const lineTokens = counter.count(line) + 1;
      if (tokens + lineTokens > maxTokens) break;
      tokens += lineTokens;
      lines.unshift(line);
    }
    return lines.length === 0 ? '' : `<pinned_messages>\n${lines.join('\n')}\n</pinned_messages>`;
  }
}
