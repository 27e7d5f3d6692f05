import {
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type ContributedTool,
  type IContextManager,
  type LLMPayload,
  type PreviewItem,
  type ReductionEpoch,
  type ReductionPreview,
  type StrategyContext,
  type TokenUsage,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import { payloadPreview, previewItem, SerialQueue, StrategyFoundation } from '@ctxkit/core/strategy-kit';

import { createCacheTools, createCompactTool } from './cache/cache-tools';
import { CachedOutputs } from './cache/cached-outputs';
import { FinishedTurnOutputs } from './cache/finished-turn-outputs';
import { ToolOutputCache } from './cache/tool-output-cache';
import { compactionPreviewNotes, messagesCompactionWouldReplace } from './compaction/compaction-preview';
import type { CompactionState } from './compaction/compaction-state';
import { Compactor } from './compaction/compactor';
import { resolveContextLimit } from './compaction/context-limit';
import { undoCompaction } from './compaction/undo-compaction';
import type { CompactionBefore } from './epochs/saved-before';
import { SessionEpochs } from './epochs/session-epochs';
import { TrimRecorder } from './epochs/trim-recorder';
import { TOOL_OUTPUT_CACHE_STRATEGY_ID } from './strategy-id';
import type { ResolvedToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { RestoredOutputs } from './view/restored-outputs';
import { asSentWhole } from './view/sent-whole';
import { toolOutputBudgetTokens } from './view/tool-output-budget';
import { ViewPayloadComposer } from './view/view-payload-composer';
import { WorkingView } from './view/working-view';

/**
 * `std-tool-output-cache-strategy`: tool outputs cached in full behind refs and shown as in-context views; when the
 * payload would not fit, older outputs become `[tool output trimmed; ref=…]` placeholders (oldest first, only as many
 * as needed; micro-compact of results without a ref, or of every old result at every payload with
 * `microCompact.when: 'always'`); compaction to retain + summary + the last turns with the transcript saved first. The
 * payload is composed by core's `PayloadComposer`; every view, placeholder, drop and compaction is reported in
 * `stats.reductions` and as an event.
 *
 * Hook points: {@link checkCompaction} after each LLM call (with its usage), after tool execution (using the last
 * usage) and before the final return. Contributed tools: `tool_output_cache`, `tool_output_cache_grep` (sent in a
 * payload only while it holds an output that is not shown whole) and `compact` (while compaction is on).
 *
 * Undoable epochs: every compaction, and every payload that shows tool outputs as placeholders for the first time (one
 * epoch per payload). {@link undo} of a compaction gives back the transcript saved before it as the history to continue
 * with; of a trim, shows its outputs whole again from then on while they fit. {@link preview} tells what the next
 * payload and checkpoint would do, changing nothing.
 *
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) at construction, for a model the registry does not know (without
 *   `maxContextTokens`)
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) from composePayload when system + tools alone do not fit
 * @see docs/strategies/tool-output-cache.md
 */
export class ToolOutputCacheStrategy implements IContextManager, ContextManagerCapabilities {
  /** Tool outputs are fitted here and kept whole behind refs: an agent loop must not cut them first. */
  readonly truncatesToolOutputs = true;
  readonly strategyId: string;
  readonly cache: ToolOutputCache;
  /** The context limit (the payload ceiling): `maxContextTokens`, else the model's window. */
  readonly contextLimit: number;
  /** Token budget of all tool outputs. */
  readonly toolOutputBudget: number;
  /** Turns are counted on the caller's history, checked apart from the working view the composer lays out. */
  private readonly foundation: StrategyFoundation;
  private readonly outputs: CachedOutputs;
  private readonly view: WorkingView;
  private readonly composer: ViewPayloadComposer;
  private readonly compactor: Compactor;
  /** The compactions and trims that can be undone, kept in the store. */
  private readonly undoable: SessionEpochs;
  /** Outputs whose trim was undone: shown whole while they fit. */
  private readonly restored = new RestoredOutputs();
  private readonly trims: TrimRecorder;
  private readonly finishedTurns: FinishedTurnOutputs;
  /** The turn of the latest call, for the events of an undo. */
  private turn = 0;
  private readonly queue = new SerialQueue();

  /** `config`: validated against `plugin.json`'s `configSchema`, its defaults applied (see `createStrategy`). */
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
    const { strategyId, model, counter } = foundation;
    this.strategyId = strategyId;
    const contextLimit = (this.contextLimit = resolveContextLimit(context.models, model, config.maxContextTokens));
    // Computed now: an unknown model is reported when the strategy is made.
    foundation.budget();
    const { contextBudgetTokens, maxMessageBytes, maxLineLength, enabled } = config.toolOutputCache;
    const toolOutputBudget = (this.toolOutputBudget = toolOutputBudgetTokens(contextBudgetTokens, contextLimit));
    const { store, agentId, sessionId, events } = context;
    this.cache = new ToolOutputCache({ store, agentId, sessionId, maxMessageBytes, maxLineLength });
    const eventBase = (turn: number) => ({ agentId, sessionId, strategyId, turn });
    const outputs = (this.outputs = new CachedOutputs({ cache: this.cache, counter, events, eventBase }));
    this.finishedTurns = new FinishedTurnOutputs(outputs, foundation.turns);
    this.view = new WorkingView({ config, counter, outputs, toolOutputBudget, restored: this.restored });
    this.undoable = new SessionEpochs({ context, eventBase });
    this.trims = new TrimRecorder(this.undoable, counter);
    this.compactor = new Compactor({
      config: config.compaction,
      context,
      strategyId,
      model,
      counter,
      contextLimit,
      outputs: enabled ? outputs : undefined,
      eventBase,
      onCompacted: (done) => this.undoable.recordCompaction(done),
    });
    const compactionStats = (): Record<string, unknown> => this.compactor.stats();
    this.composer = new ViewPayloadComposer({ config, context, foundation, compactionStats, eventBase });
  }

  /**
   * Builds the payload: system, dynamic context, retain + summary, and the working view fitted to the budget. A
   * compaction that is due runs first (its summary call waited for at most `compaction.maxWaitMs`, then run in the
   * background and committed by the next call; not waited for after a failed one); the outputs the payload shows as
   * placeholders for the first time become a trim epoch.
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
      this.view.sync(history, this.compactor.layout(history, turn), turn);
      if (await this.compactor.compactIfDue(history, this.view, turn))
        this.view.sync(history, this.compactor.layout(history, turn), turn);
      const composed = await this.composer.compose(call, this.view, false);
      await this.trims.record(composed, turn);
      // What the turn is sent with: a provider compaction request carries the same tools.
      const { payload } = composed.final;
      if (options.sent !== false) this.compactor.tools = payload.tools;
      return payload;
    });
  }

  /**
   * Caches the tool outputs of the finished turn (after its user message; when the history grew since the last call,
   * every message appended since), so that the next payload finds them stored. Older outputs are cached when a payload
   * first reaches them.
   */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.serialize(async () => {
      this.foundation.assertLive('onTurnComplete');
      if (this.config.toolOutputCache.enabled) await this.finishedTurns.cache(newHistory);
    });
  }

  /**
   * `tool_output_cache` and `tool_output_cache_grep` (when the cache is on) and `compact` (when compaction is on), for
   * the host to register once. A payload carries the expand and grep definitions only while it holds an output that is
   * not shown whole (a host that passes them in `tools` has them left out until then).
   */
  contributedTools(): ContributedTool[] {
    const tools: ContributedTool[] = [];
    if (this.config.toolOutputCache.enabled) tools.push(...createCacheTools(this.cache));
    if (this.config.compaction.enabled) tools.push(createCompactTool((focus) => this.compactor.request(focus)));
    return tools;
  }

  /**
   * Called after an LLM call (with its usage), after tool execution (decides on the last usage) and before the final
   * return. A pending `compact` tool request runs first. Returns the compacted history when compaction happened;
   * callers continue with it (or keep passing their full history: the strategy maps it onto the compacted view).
   */
  checkCompaction(
    _checkpoint: CompactionCheckpoint,
    history: ReadonlyArray<ChatMessage>,
    usage?: TokenUsage,
  ): Promise<CompactionHookResult> {
    return this.serialize(async () => {
      this.foundation.assertLive('checkCompaction');
      const turn = (this.turn = this.foundation.turns.count(history));
      return this.compactor.check(history, usage, turn, () =>
        this.view.sync(history, this.compactor.layout(history, turn), turn),
      );
    });
  }

  /** The compactions and trims that can be undone, oldest first (kept in the store, shared by every process). */
  epochs(): Promise<ReductionEpoch[]> {
    return this.undoable.list();
  }

  /**
   * Restores what the session had before `epochId`, undoing every later epoch with it. A compaction: the transcript
   * saved before it is read back and returned as `history` (continue with it: composing it gives the payload composed
   * for it before the compaction), the compaction then in effect and the back-off come back, and automatic compaction
   * counts the undo as a refused attempt (it waits until the history has grown by `retryAfterTokens` before it compacts
   * again; a `compact` request still runs). A trim: its outputs are shown whole again from then on, as long as they fit
   * (under pressure they give way after every other older output). Nothing changes when the transcript cannot be read:
   * the epoch stays to be undone again.
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
      const history = compaction ? await undoCompaction(this.compactor, compaction, this.context) : undefined;
      const outputs = toUndo.flatMap((entry) => (entry.before?.kind === 'trim' ? entry.before.toolCallIds : []));
      this.restored.add(outputs);
      this.trims.forget(outputs);
      this.view.forgetLastCall();
      const { undone, alsoUndone } = await this.undoable.take(epochId, this.turn, history !== undefined);
      return { undone, alsoUndone, ...(history ? { history } : {}) };
    });
  }

  /**
   * What the next `composePayload` with these arguments would leave out (`dropped`) and show as a placeholder, cut or
   * micro-compacted (`trimmed`), its tokens, and the messages the compaction the next payload or checkpoint would start
   * replaces (`compacted`: a pending `compact` request, or the threshold passed while the back-off allows it). Composed
   * on a copy of the working view: no cell, count or compaction state of the session changes, nothing is stored, no
   * event is emitted and no model is called. When a compaction is due, the payload part is the one before it (its
   * summary is not written yet).
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
      const { layout, setAside } = this.compactor.peekLayout(history);
      const view = this.view.fork(this.outputs.preview);
      view.sync(history, layout, turn);
      const plan = await this.compactor.plan(history, view, fixedTokens);
      const compacted =
        plan.trigger && this.context.llm
          ? await messagesCompactionWouldReplace(view, history, this.config.compaction.retainLastTurns, counter)
          : [];
      const composed = await this.composer.compose(call, view, true);
      const planned = payloadPreview(composed.final.payload, asSentWhole(history, composed.messages), counter);
      const caller = (items: PreviewItem[]) => items.map((item) => previewItem(history, item.index, counter));
      const notes = [
        ...compactionPreviewNotes({ plan, compacted: compacted.length, hasModel: Boolean(this.context.llm), setAside }),
        ...planned.notes,
      ];
      return {
        dropped: caller(planned.dropped),
        folded: [],
        compacted,
        trimmed: caller(planned.trimmed),
        payloadTokens: planned.payloadTokens,
        notes,
      };
    });
  }

  /** Resolves when no call is running and the outputs the calls cached are written to the store. */
  whenIdle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops accepting calls and aborts a background summary call; the store keeps its data. Safe to call twice. */
  dispose(): void {
    this.foundation.dispose();
    this.compactor.dispose();
  }

  /** The current compaction state (for reports and tests); `undefined` before the first compaction. */
  get compactionState(): Readonly<CompactionState> | undefined {
    return this.compactor.state;
  }

  /** Asks for a compaction at the next hook or payload, as the `compact` tool does. */
  requestCompaction(focus?: string): void {
    this.compactor.request(focus);
  }

  /**
   * Runs calls one at a time; once a call's answer is delivered, the outputs it cached are written (the next call,
   * `whenIdle` and every read of a ref wait for them).
   */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.run(work);
    // A write that fails is reported as a warning and done again when its ref is expanded.
    this.queue.run(() => this.outputs.storeOnceAnswered(this.turn)).catch(() => undefined);
    return run;
  }
}
