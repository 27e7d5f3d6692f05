import {
  type ChatMessage,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type IContextManager,
  type LLMPayload,
  type PayloadBudget,
  type ReductionEpoch,
  type ReductionPreview,
  type StrategyContext,
  type ToolDefinition,
} from '@ctxkit/core';
import { payloadPreview, StrategyFoundation } from '@ctxkit/core/strategy-kit';

import { SLIDING_WINDOW_STRATEGY_ID, type SlidingWindowConfig } from './sliding-window-config';

/**
 * The sliding window (the default): system prompt + tool definitions + dynamic
 * context (RAG) are counted first; the rest of the budget goes to the newest history, by whole
 * tool-call groups, through core's `selectHistoryWindow`. Older history is dropped and reported; the
 * current turn is truncated (tool outputs head + tail, then the newest user message) rather than
 * dropped; orphan tool results and dangling calls are never sent and are reported.
 *
 * One instance serves one conversation (agent + session). Per turn it counts only new messages (a
 * ledger over the history).
 */
export class SlidingWindowStrategy implements IContextManager, ContextManagerCapabilities {
  private readonly base: StrategyFoundation;

  /** @param config validated, with the schema's defaults applied (see `resolveSlidingWindowConfig`) */
  constructor(
    private readonly config: SlidingWindowConfig,
    context: StrategyContext,
  ) {
    this.base = new StrategyFoundation(context, {
      strategyId: SLIDING_WINDOW_STRATEGY_ID,
      model: config.model,
      budget: config,
    });
  }

  /** The budget of every payload: from `maxContextTokens`, else the model registry's window. */
  budget(): PayloadBudget {
    return this.base.budget();
  }

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<LLMPayload> {
    return this.compose(systemPrompt, history, tools, ragContext, options);
  }

  /** Synchronous core of {@link composePayload}. */
  compose(
    systemPrompt: string,
    history: ReadonlyArray<ChatMessage>,
    tools: ReadonlyArray<ToolDefinition>,
    ragContext?: string,
    options: ComposeOptions = {},
  ): LLMPayload {
    this.base.assertLive('compose');
    const turn = this.base.turns.count(history);
    return this.base.composer.compose({
      systemPrompt,
      history,
      tools,
      turn,
      ragContext,
      cutBackRatio: this.config.cutBackRatio,
      keepFirstShare: this.config.keepFirstShare,
      ...options,
    }).payload;
  }

  /**
   * What {@link composePayload} with these arguments would leave out and cut: a layout not committed
   * (no event, and the held window start of `cutBackRatio` stays as it was).
   */
  async preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<ReductionPreview> {
    this.base.assertLive('preview');
    const turn = this.base.turns.count(history);
    const { payload } = this.base.composer.layout({
      systemPrompt,
      history,
      tools,
      turn,
      ragContext,
      cutBackRatio: this.config.cutBackRatio,
      keepFirstShare: this.config.keepFirstShare,
      ...options,
    });
    return payloadPreview(payload, history, this.base.counter);
  }

  /** None: the window keeps no state of its own, so there is nothing to undo (and no `undo`). */
  async epochs(): Promise<ReductionEpoch[]> {
    return [];
  }

  /** Nothing to do in the background: the window is computed on demand from the caller's history. */
  async onTurnComplete(_newHistory: ChatMessage[]): Promise<void> {
    this.base.assertLive('onTurnComplete');
  }

  /** Releases the cached state. Safe to call more than once. */
  dispose(): void {
    this.base.dispose();
  }
}
