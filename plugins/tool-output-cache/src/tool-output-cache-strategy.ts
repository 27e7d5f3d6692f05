import {
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type ContributedTool,
  type CtxkitEventBase,
  type CtxkitEventPayloads,
  type IContextManager,
  type LLMPayload,
  type PreviewItem,
  type ReductionEpoch,
  type ReductionPreview,
  safeEmit,
  type StrategyContext,
  type TokenUsage,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import { payloadPreview, previewItem, SerialQueue, StrategyFoundation } from '@ctxkit/core/strategy-kit';

import { createCacheTools, createCompactTool } from './cache/cache-tools';
import { CachedOutputs } from './cache/cached-outputs';
import { ToolOutputCache } from './cache/tool-output-cache';
import { Compactor } from './compaction/compactor';
import type { CompactionState } from './compaction/history-layout';
import { type CompactionBefore, SessionEpochs } from './epochs/session-epochs';
import {
  type ResolvedToolOutputCacheStrategyConfig,
  resolveToolOutputCacheStrategyConfig,
  TOOL_OUTPUT_CACHE_STRATEGY_ID,
  type ToolOutputCacheStrategyConfig,
} from './tool-output-cache-strategy-config';
import { ViewPayloadComposer } from './view/view-payload-composer';
import { toolOutputBudgetTokens, WorkingView } from './view/working-view';

/** Emits a strategy event: the session's base fields (agent, session, strategy, turn) first, then the payload's. */
export type StrategyEmit = <K extends keyof CtxkitEventPayloads>(
  event: K,
  turn: number,
  payload: Omit<CtxkitEventPayloads[K], keyof CtxkitEventBase>,
) => void;

/**
 * The plugin's factory, for the loader and direct callers: validates `config` and applies its defaults as the loader
 * does, then builds the strategy for one agent and session.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for a config the schema rejects, listing every invalid field
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when the model is not registered and no `maxContextTokens` is set
 * @see docs/strategies/tool-output-cache.md
 */
export function createStrategy(
  config: ToolOutputCacheStrategyConfig | undefined | null,
  context: StrategyContext,
): ToolOutputCacheStrategy {
  return new ToolOutputCacheStrategy(resolveToolOutputCacheStrategyConfig(config), context);
}

/**
 * `std-tool-output-cache-strategy`: tool outputs cached in full behind refs and shown as in-context views; under
 * pressure older outputs become `[tool output trimmed; ref=…]` placeholders or micro-compact lines, oldest first and
 * only as many as needed; compaction to retain + summary + the last turns, the transcript saved first. Every view,
 * placeholder, drop and compaction is reported in `stats.reductions` and as an event. Every compaction, and every
 * payload that first shows outputs as placeholders, is an undoable epoch.
 *
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) at construction, for a model the registry does not know (without
 *   `maxContextTokens`)
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) from composePayload when system + tools alone do not fit
 * @see docs/strategies/tool-output-cache.md
 */
export class ToolOutputCacheStrategy implements IContextManager, ContextManagerCapabilities {
  /** An agent loop must not cut tool outputs first: they are fitted here and kept whole behind refs. */
  readonly truncatesToolOutputs = true;
  readonly strategyId: string;
  readonly cache: ToolOutputCache;
  /** The payload ceiling: `maxContextTokens`, else the model's window. */
  readonly contextLimit: number;
  /** Token budget of all tool outputs. */
  readonly toolOutputBudget: number;
  private readonly foundation: StrategyFoundation;
  private readonly outputs: CachedOutputs;
  private readonly view: WorkingView;
  private readonly composer: ViewPayloadComposer;
  private readonly compactor: Compactor;
  private readonly undoable: SessionEpochs;
  /** The latest call's turn, for an undo's events. */
  private turn = 0;
  private readonly queue = new SerialQueue();

  /** `config`: validated, its defaults applied (see `createStrategy`). */
  constructor(
    readonly config: ResolvedToolOutputCacheStrategyConfig,
    private readonly context: StrategyContext,
  ) {
    const foundation = (this.foundation = new StrategyFoundation(context, {
      strategyId: TOOL_OUTPUT_CACHE_STRATEGY_ID,
      model: config.model,
      budget: config,
      ownHistoryCheck: true,
    }));
    const { strategyId, counter } = foundation;
    this.strategyId = strategyId;
    // Computed now: an unknown model is reported when the strategy is made.
    const contextLimit = (this.contextLimit = foundation.budget().maxContextTokens);
    const { contextBudgetTokens, maxMessageBytes, maxLineLength, enabled } = config.toolOutputCache;
    const toolOutputBudget = (this.toolOutputBudget = toolOutputBudgetTokens(contextBudgetTokens, contextLimit));
    const { store, agentId, sessionId, events } = context;
    this.cache = new ToolOutputCache({ store, agentId, sessionId, maxMessageBytes, maxLineLength });
    // Assigned, not spread: a first call reports thousands of outputs, and a spread literal costs microseconds each.
    const emit: StrategyEmit = (event, turn, payload) => {
      const base = { agentId, sessionId, strategyId, turn };
      safeEmit(events, event, Object.assign(base, payload) as CtxkitEventPayloads[typeof event]);
    };
    const outputs = (this.outputs = new CachedOutputs({ cache: this.cache, counter, emit }));
    this.view = new WorkingView({ config, counter, outputs, toolOutputBudget });
    this.undoable = new SessionEpochs(context, counter, emit);
    const cached = enabled ? outputs : undefined;
    this.compactor = new Compactor(config.compaction, foundation, context, contextLimit, cached, emit, (done) =>
      this.undoable.recordCompaction(done),
    );
    this.composer = new ViewPayloadComposer(config, foundation, context, this.compactor, emit);
  }

  /**
   * A compaction that is due runs first (waited for at most `compaction.maxWaitMs`, then taken in by a later call);
   * the outputs the payload first shows as placeholders become a trim epoch.
   */
  composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<LLMPayload> {
    return this.serialize(async () => {
      this.foundation.assertLive('composePayload');
      const turn = (this.turn = this.foundation.turns.count(history));
      const systemMessage = this.composer.systemMessageOf(systemPrompt, true);
      const call = { systemPrompt, systemMessage, tools, ragContext, options, turn };
      this.compactor.systemPrompt = systemPrompt;
      this.compactor.fixedTokens = this.composer.fixedTokens(call);
      this.view.cells.takeNewlyCached();
      this.compactor.sync(history, this.view, turn);
      if (await this.compactor.compactIfDue(history, this.view, turn)) this.compactor.sync(history, this.view, turn);
      const composed = await this.composer.compose(call, this.view, false);
      await this.undoable.recordTrims(composed, turn);
      // What the turn is sent with: a provider compaction request carries the same tools.
      const { payload } = composed.final;
      if (options.sent !== false) this.compactor.tools = payload.tools;
      return payload;
    });
  }

  /** Caches the finished turn's tool outputs (older ones are cached when a payload first reaches them). */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.serialize(async () => {
      this.foundation.assertLive('onTurnComplete');
      if (this.config.toolOutputCache.enabled)
        await this.outputs.cacheFinishedTurn(newHistory, this.foundation.turns.count(newHistory));
    });
  }

  /**
   * `tool_output_cache` and `tool_output_cache_grep` (cache on) and `compact` (compaction on). A payload carries the
   * first two only while it holds an output it does not show whole, even when the host passes them in `tools`.
   */
  contributedTools(): ContributedTool[] {
    const tools: ContributedTool[] = [];
    if (this.config.toolOutputCache.enabled) tools.push(...createCacheTools(this.cache));
    if (this.config.compaction.enabled) tools.push(createCompactTool((focus) => this.compactor.request(focus)));
    return tools;
  }

  /**
   * After an LLM call (with its usage), after tool execution and before the final return; a pending `compact` request
   * runs first. Callers may continue with the compacted history or keep passing their full one.
   */
  checkCompaction(
    _checkpoint: CompactionCheckpoint,
    history: ReadonlyArray<ChatMessage>,
    usage?: TokenUsage,
  ): Promise<CompactionHookResult> {
    return this.serialize(async () => {
      this.foundation.assertLive('checkCompaction');
      const turn = (this.turn = this.foundation.turns.count(history));
      return this.compactor.check(history, usage, turn, this.view);
    });
  }

  /** The compactions and trims that can be undone, oldest first (kept in the store, shared by every process). */
  epochs(): Promise<ReductionEpoch[]> {
    return this.undoable.log.list();
  }

  /**
   * Undoing a compaction returns the transcript saved before it as `history` and counts as a refused attempt (automatic
   * compaction waits for `retryAfterTokens` of growth); undoing a trim shows its outputs whole again while they fit.
   * When the transcript cannot be read nothing changes.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript saved before an undone compaction is gone
   */
  undo(epochId: string): Promise<UndoResult> {
    return this.serialize(async () => {
      this.foundation.assertLive('undo');
      const toUndo = await this.undoable.peekFrom(epochId);
      // The oldest compaction undone holds the history before all of them.
      const compaction = toUndo
        .map((entry) => entry.before)
        .find((before): before is CompactionBefore => before?.kind === 'compaction');
      const history = compaction ? await this.compactor.undo(compaction) : undefined;
      const outputs = toUndo.flatMap((entry) => (entry.before?.kind === 'trim' ? entry.before.toolCallIds : []));
      this.view.restore(outputs);
      this.undoable.forgetTrims(outputs);
      const { undone, alsoUndone } = await this.undoable.take(epochId, this.turn, history !== undefined);
      return { undone, alsoUndone, ...(history ? { history } : {}) };
    });
  }

  /**
   * Composed on a copy of the working view, changing nothing and calling no model. `compacted`: the messages the
   * compaction the next payload or checkpoint would start replaces; the payload part is then the one before it.
   */
  preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<ReductionPreview> {
    return this.serialize(async () => {
      this.foundation.assertLive('preview');
      const { turns, counter } = this.foundation;
      const turn = turns.count(history);
      const systemMessage = this.composer.systemMessageOf(systemPrompt, false);
      const call = { systemPrompt, systemMessage, tools, ragContext, options, turn };
      const fixedTokens = this.composer.fixedTokens(call);
      const view = this.view.fork(this.outputs.preview);
      const { compacted, notes } = await this.compactor.preview(history, view, turn, fixedTokens);
      const composed = await this.composer.compose(call, view, true);
      const planned = payloadPreview(composed.final.payload, asSentWhole(history, composed.messages), counter);
      const caller = (items: PreviewItem[]) => items.map((item) => previewItem(history, item.index, counter));
      return {
        dropped: caller(planned.dropped),
        folded: [],
        compacted,
        trimmed: caller(planned.trimmed),
        payloadTokens: planned.payloadTokens,
        notes: [...notes, ...planned.notes],
      };
    });
  }

  /** Resolves when no call runs and the outputs the calls cached are written. */
  whenIdle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops accepting calls and aborts a background summary call; the store keeps its data. */
  dispose(): void {
    this.foundation.dispose();
    this.compactor.dispose();
  }

  /** The compaction in effect (for reports and tests). */
  get compactionState(): Readonly<CompactionState> | undefined {
    return this.compactor.state;
  }

  /** Asks for a compaction at the next hook or payload, as the `compact` tool does. */
  requestCompaction(focus?: string): void {
    this.compactor.request(focus);
  }

  /** Runs calls one at a time; once a call's answer is delivered, the outputs it cached are written. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.run(work);
    // A write that fails is reported as a warning and done again when its ref is expanded.
    this.queue.run(() => this.outputs.storeOnceAnswered(this.turn)).catch(() => undefined);
    return run;
  }
}

/**
 * The caller's history with the view's copy wherever it shows a tool output whole (a copy: it carries the ref), so
 * that core's `payloadPreview` finds in the payload the messages a sparse reduction range left alone.
 */
function asSentWhole(history: ReadonlyArray<ChatMessage>, view: ReadonlyArray<ChatMessage>): ChatMessage[] {
  return history.map((message, index) => {
    const shown = view[index];
    const wholeCopy = shown?.role === 'tool' && shown !== message && shown.content === message.content;
    return wholeCopy && message.role === 'tool' ? shown : message;
  });
}
