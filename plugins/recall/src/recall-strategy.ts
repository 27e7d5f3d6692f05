import type {
  ChatMessage,
  ComposeOptions,
  ContextManagerCapabilities,
  IContextManager,
  LLMPayload,
  PayloadBudget,
  ReductionEpoch,
  ReductionPreview,
  StrategyContext,
  ToolDefinition,
} from '@ctxkit/core';
import { payloadPreview, RecallLayer, StrategyFoundation } from '@ctxkit/core/strategy-kit';

import { RECALL_STRATEGY_ID, type RecallStrategyConfig } from './recall-strategy-config';

/**
 * The recall strategy: system prompt + tool definitions + dynamic context first, then the newest
 * history that fits beside the older turns most relevant to the newest user message. Those are
 * recalled from the session's recall index (or every session of its resource), by words and, with an
 * embedder, by meaning, and sent in one user-role block of quoted turns, each run labelled with its
 * date, in chronological order, tool calls never split from their results.
 *
 * One instance serves one conversation (agent + session). Each finished turn is indexed once, in the
 * agent's store, so a restart or another process rebuilds the index from the store alone.
 */
export class RecallStrategy implements IContextManager, ContextManagerCapabilities {
  private readonly base: StrategyFoundation;
  private readonly recall: RecallLayer;

  /** @param config validated, with the schema's defaults applied (see `resolveRecallStrategyConfig`) */
  constructor(
    private readonly config: RecallStrategyConfig,
    context: StrategyContext,
  ) {
    this.base = new StrategyFoundation(context, {
      strategyId: RECALL_STRATEGY_ID,
      model: config.model,
      budget: config,
    });
    this.recall = new RecallLayer({ context, config: config.recall, counter: this.base.counter });
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
    options: ComposeOptions = {},
  ): Promise<LLMPayload> {
    this.base.assertLive('compose');
    const turn = this.base.turns.count(history);
    const prepared = await this.recall.prepare(history);
    this.base.assertLive('compose');
    const composed = this.recall.layout(
      this.base.composer,
      { systemPrompt, history, tools, turn, ragContext, ...this.cutBack(), ...options },
      prepared,
    );
    this.base.composer.commit(composed, turn);
    this.recall.committed(this.base.composer, composed, turn);
    return composed.payload;
  }

  /**
   * What {@link composePayload} with these arguments would drop and recall, composed without being
   * remembered: no event, nothing indexed, no embedder call (the index as it is).
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
    const prepared = await this.recall.prepare(history, { preview: true });
    const { payload } = this.recall.layout(
      this.base.composer,
      { systemPrompt, history, tools, turn, ragContext, ...this.cutBack(), ...options },
      prepared,
    );
    return payloadPreview(payload, history, this.base.counter);
  }

  /** How the window is cut back when the history no longer fits (see `cutBackRatio`). */
  private cutBack(): { cutBackRatio: number } {
    return { cutBackRatio: this.config.cutBackRatio };
  }

  /** None: recall changes no state a user would undo (the index only grows with the history). */
  async epochs(): Promise<ReductionEpoch[]> {
    return [];
  }

  /** Indexes the finished turn. */
  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.base.assertLive('onTurnComplete');
    await this.recall.onTurnComplete(newHistory);
  }

  /** Resolves once indexing and background embedding have settled. */
  whenIdle(): Promise<void> {
    return this.recall.whenIdle();
  }

  /** Releases the index. Safe to call more than once. */
  dispose(): void {
    this.base.dispose();
    this.recall.dispose();
  }
}
