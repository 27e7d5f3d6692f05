import {
  DisposedError,
  ProviderPayloadError,
  safeEmit,
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type IContextManager,
  type ContributedTool,
  type CtxkitEventBase,
  type LLMPayload,
  type PayloadBudget,
  type PreviewItem,
  type ReductionEpoch,
  type ReductionPreview,
  type StrategyContext,
  type SystemMessage,
  type ITokenCounter,
  type TokenUsage,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import {
  assertHistoryShape,
  computeBudget,
  findPayloadProblems,
  PayloadComposer,
  payloadPreview,
  previewItem,
  type ComposedPayload,
} from '@ctxkit/core/strategy-kit';
import { CachedOutputs } from './cache/cached-outputs';
import { COMPACT_DEFINITION, createCacheTools, createCompactTool, TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION } from './cache/cache-tools';
import { OfferedToolLists } from './cache/offered-tools';
import { ToolOutputCache } from './cache/tool-output-cache';
import { compactionMemory, compactionReason } from './compaction/compaction-memory';
import { startsWithPrefix, type CompactionState, type SavedCompactionState } from './compaction/compaction-state';
import { Compactor, type CompactionDone } from './compaction/compactor';
import { resolveContextLimit } from './compaction/context-limit';
import { readTranscript } from './compaction/read-transcript';
import { repairToolPairs } from './compaction/repair-tool-pairs';
import { compactionTail } from './compaction/tail-turns';
import { countTurns, TurnCounter } from './count-turns';
import { compactionEpoch, trimEpoch } from './epochs/describe-epoch';
import type { CompactionBefore } from './epochs/saved-before';
import { SessionEpochs } from './epochs/session-epochs';
import { TrimTracker } from './epochs/trim-tracker';
import { HistoryGrowth } from './history-growth';
import { PayloadCheck } from './payload-check';
import { PreviousPayload } from './payload-continuation';
import { PayloadRefs, refsIn } from './payload-refs';
import { TOOL_OUTPUT_CACHE_STRATEGY_ID } from './strategy-id';
import type { ResolvedToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { fitView, type FittedView } from './view/fit-view';
import { RestoredOutputs } from './view/restored-outputs';
import { asSentWhole } from './view/sent-whole';
import { toolOutputBudgetTokens } from './view/tool-output-budget';
import { WorkingView, type PreparedView } from './view/working-view';

export type { CompactionTrigger } from './compaction/compactor';

/** The arguments of one `composePayload`. */
interface ComposeCall {
  systemPrompt: string;
  /** The system prompt as one message object (the same from call to call, so that its count is cached). */
  systemMessage: SystemMessage;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  options: ComposeOptions;
  turn: number;
}

/** A payload composed from a working view, with what it was composed from. */
interface ComposedView {
  payload: LLMPayload;
  prepared: PreparedView;
  fitted: FittedView;
  final: ComposedPayload;
}

/**
 * `std-tool-output-cache-strategy`: tool outputs cached in full behind refs and shown as in-context
 * views; when the payload would not fit, older outputs become `[tool output trimmed; ref=…]`
 * placeholders (oldest first, only as many as needed; micro-compact of results without a ref, or of
 * every old result at every payload with `microCompact.when: 'always'`); compaction to retain +
 * summary + the last turns with the transcript saved first. The payload is composed by core's
 * {@link PayloadComposer}; every view, placeholder, drop and compaction is reported in
 * `stats.reductions` and as an event.
 *
 * Hook points: {@link checkCompaction} after each LLM call (with its usage), after tool execution
 * (using the last usage) and before the final return. Contributed tools: `tool_output_cache`,
 * `tool_output_cache_grep` (sent in a payload only while it holds an output that is not shown whole)
 * and `compact` (while compaction is on).
 *
 * Undoable epochs: every compaction, and every payload that shows tool outputs as placeholders for
 * the first time (one epoch per payload). {@link undo} of a compaction gives back the transcript saved
 * before it as the history to continue with; of a trim, shows its outputs whole again from then on
 * while they fit. {@link preview} tells what the next payload and checkpoint would do, changing nothing.
 *
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) at construction, for a model the registry does not know (without `maxContextTokens`)
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
  private readonly model: string;
  private readonly counter: ITokenCounter;
  private readonly budget: PayloadBudget;
  private readonly composer: PayloadComposer;
  private readonly outputs: CachedOutputs;
  private readonly view: WorkingView;
  private readonly compactor: Compactor;
  /** The compactions and trims that can be undone, kept in the store. */
  private readonly undoable: SessionEpochs;
  /** Outputs whose trim was undone: shown whole while they fit. */
  private readonly restored = new RestoredOutputs();
  /** Which placeholders a payload shows for the first time. */
  private readonly trims = new TrimTracker();
  /** The turn of the latest call, for the events of an undo. */
  private turn = 0;
  private readonly cacheDefinitions: ReadonlyArray<ToolDefinition> = [TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION];
  /** The payloads' tool lists, kept while the caller's tools are the same objects. */
  private readonly toolLists = new OfferedToolLists();
  /** The history last checked for shape: a call checks only the messages appended since. */
  private readonly checked = new HistoryGrowth();
  /** The last payload composed: the next is checked and counted from where it stops continuing it. */
  private readonly previousPayload = new PreviousPayload();
  /** The provider-validity check of the payloads. */
  private readonly payloadCheck = new PayloadCheck();
  /** The refs of the payloads (`refsInPayload`). */
  private readonly payloadRefs = new PayloadRefs();
  private readonly composeTurns = new TurnCounter();
  private readonly hookTurns = new TurnCounter();
  private readonly finishedTurns = new TurnCounter();
  /** The history `onTurnComplete` saw last: only the messages appended since are cached. */
  private readonly finished = new HistoryGrowth();
  /** One system message object per prompt, so that its count is cached. */
  private systemMessage: SystemMessage = { role: 'system', content: '' };
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  /** `config`: validated against `plugin.json`'s `configSchema`, its defaults applied (see `createStrategy`). */
  constructor(
    readonly config: ResolvedToolOutputCacheStrategyConfig,
    private readonly context: StrategyContext,
  ) {
    this.strategyId = context.strategyId || TOOL_OUTPUT_CACHE_STRATEGY_ID;
    this.model = this.config.model ?? context.model;
    this.counter = this.model === context.model ? context.counter : context.counterFor(this.model);
    this.contextLimit = resolveContextLimit(context.models, this.model, this.config.maxContextTokens);
    const contextWindow = context.models.find(this.model)?.contextWindow ?? this.contextLimit;
    const { maxContextTokens, reserveOutputTokens, safetyMarginRatio } = this.config;
    this.budget = computeBudget({ contextWindow, maxContextTokens, reserveOutputTokens, safetyMarginRatio });
    this.composer = new PayloadComposer({
      owner: { agentId: context.agentId, sessionId: context.sessionId, strategyId: this.strategyId, events: context.events },
      model: this.model,
      counter: this.counter,
      budget: () => this.budget,
    });
    this.toolOutputBudget = toolOutputBudgetTokens(this.config.toolOutputCache.contextBudgetTokens, this.contextLimit);
    const { maxMessageBytes, maxLineLength } = this.config.toolOutputCache;
    this.cache = new ToolOutputCache({ store: context.store, agentId: context.agentId, sessionId: context.sessionId, maxMessageBytes, maxLineLength });
    const eventBase = (turn: number): CtxkitEventBase => this.eventBase(turn);
    this.outputs = new CachedOutputs({ cache: this.cache, counter: this.counter, events: context.events, eventBase });
    this.view = new WorkingView({ config: this.config, counter: this.counter, outputs: this.outputs, toolOutputBudget: this.toolOutputBudget, restored: this.restored });
    this.undoable = new SessionEpochs({ context, events: context.events, eventBase });
    const outputs = this.config.toolOutputCache.enabled ? this.outputs : undefined;
    const { strategyId, model, counter, contextLimit } = this;
    const onCompacted = (done: CompactionDone): Promise<void> => this.recordCompaction(done);
    this.compactor = new Compactor({ config: this.config.compaction, context, strategyId, model, counter, contextLimit, outputs, eventBase, onCompacted });
  }

  /** Builds the payload: system, dynamic context, retain + summary, and the working view fitted to the budget. */
  composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options: ComposeOptions = {}): Promise<LLMPayload> {
    return this.serialize(() => this.compose(systemPrompt, history, tools, ragContext, options));
  }

  /**
   * Caches the tool outputs of the finished turn (after its user message; when the history grew since
   * the last call, every message appended since), so that the next payload finds them stored. Older
   * outputs are cached when a payload first reaches them.
   */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.serialize(async () => {
      this.assertLive();
      if (!this.config.toolOutputCache.enabled) return;
      const turn = this.finishedTurns.count(newHistory);
      let from = this.finished.observe(newHistory);
      // A history seen for the first time: its finished turn starts at its newest user message.
      if (from === 0) for (let index = newHistory.length - 1; index > 0 && from === 0; index--) if (newHistory[index]!.role === 'user') from = index;
      for (let index = from; index < newHistory.length; index++) {
        const message = newHistory[index]!;
        if (message.role === 'tool') await this.outputs.ensure(message, turn);
      }
    });
  }

  /**
   * `tool_output_cache` and `tool_output_cache_grep` (when the cache is on) and `compact` (when
   * compaction is on), for the host to register once. A payload carries the expand and grep
   * definitions only while it holds an output that is not shown whole (a host that passes them in
   * `tools` has them left out until then).
   */
  contributedTools(): ContributedTool[] {
    const tools: ContributedTool[] = [];
    if (this.config.toolOutputCache.enabled) tools.push(...createCacheTools(this.cache));
    if (this.config.compaction.enabled) tools.push(createCompactTool((focus) => this.compactor.request(focus)));
    return tools;
  }

  /**
   * Called after an LLM call (with its usage), after tool execution (decides on the last usage) and
   * before the final return. A pending `compact` tool request runs first. Returns the compacted
   * history when compaction happened; callers continue with it (or keep passing their full history:
   * the strategy maps it onto the compacted view).
   */
  checkCompaction(checkpoint: CompactionCheckpoint, history: ReadonlyArray<ChatMessage>, usage?: TokenUsage): Promise<CompactionHookResult> {
    return this.serialize(async () => {
      this.assertLive();
      const turn = this.hookTurns.count(history);
      this.turn = turn;
      return this.compactor.check(checkpoint, history, usage, turn, () => {
        this.view.sync(history, this.compactor.layout(history, turn), turn);
        return this.view;
      });
    });
  }

  /** The compactions and trims that can be undone, oldest first (kept in the store: shared by every process serving the session). */
  epochs(): Promise<ReductionEpoch[]> {
    return this.undoable.list();
  }

  /**
   * Restores what the session had before `epochId`, undoing every later epoch with it. A compaction:
   * the transcript saved before it is read back and returned as `history` (continue with it: composing
   * it gives the payload composed for it before the compaction), the compaction then in effect and the
   * back-off come back, and automatic compaction counts the undo as a refused attempt (it waits until
   * the history has grown by `retryAfterTokens` before it compacts again; a `compact` request still
   * runs). A trim: its outputs are shown whole again from then on, as long as they fit (under pressure
   * they give way after every other older output). Nothing changes when the transcript cannot be read:
   * the epoch stays to be undone again.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript saved before an undone compaction is gone
   */
  undo(epochId: string): Promise<UndoResult> {
    return this.serialize(async () => {
      this.assertLive();
      const toUndo = await this.undoable.peekFrom(epochId);
      // The oldest compaction undone holds the history before all of them.
      const compaction = toUndo.map((entry) => entry.before).find((before): before is CompactionBefore => before?.kind === 'compaction');
      let history: ChatMessage[] | undefined;
      if (compaction) {
        history = await readTranscript(this.context.store, this.context, compaction.transcriptRef);
        const previous = compaction.compactor.state;
        this.compactor.restore(compaction.compactor, previous ? await this.coveredBy(previous, history) : undefined, history.length);
      }
      const outputs = toUndo.flatMap((entry) => (entry.before?.kind === 'trim' ? entry.before.toolCallIds : []));
      this.restored.add(outputs);
      this.trims.forget(outputs);
      this.view.forgetReuse();
      const { undone, alsoUndone } = await this.undoable.take(epochId, this.turn, history !== undefined);
      return { undone, alsoUndone, ...(history ? { history } : {}) };
    });
  }

  /**
   * What the next `composePayload` with these arguments would leave out (`dropped`) and show as a
   * placeholder, cut or micro-compacted (`trimmed`), its tokens, and the messages the compaction the
   * next payload or checkpoint would start replaces (`compacted`: a pending `compact` request, or the
   * threshold passed while the back-off allows it). Composed on a copy of the working view: no cell,
   * count or compaction state of the session changes, nothing is stored, no event is emitted and no
   * model is called. When a compaction is due, the payload part is the one before it (its summary is
   * not written yet).
   */
  preview(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options: ComposeOptions = {}): Promise<ReductionPreview> {
    return this.serialize(async () => {
      this.assertLive();
      assertHistoryShape(history, this.checked.newFrom(history));
      const turn = countTurns(history);
      const systemMessage: SystemMessage = this.systemMessage.content === systemPrompt ? this.systemMessage : { role: 'system', content: systemPrompt };
      const fixedTokens = this.counter.countMessage(systemMessage) + this.counter.countTools(tools) + (ragContext ? this.counter.count(ragContext) : 0);
      const { layout, setAside } = this.compactor.peekLayout(history);
      const view = this.view.fork(this.outputs.preview);
      view.sync(history, layout, turn);
      const plan = await this.compactor.plan(history, view, fixedTokens);
      const compacted = plan.trigger && this.context.llm ? await this.wouldCompact(view, history) : [];
      const composed = await this.composeView(history, { systemPrompt, systemMessage, tools, ragContext, options, turn }, view, true);
      const planned = payloadPreview(composed.payload, asSentWhole(history, composed.fitted.messages), this.counter);
      const caller = (items: PreviewItem[]) => items.map((item) => previewItem(history, item.index, this.counter));
      const notes: string[] = [];
      if (setAside) notes.push('the history no longer continues the compacted conversation: the next payload sets the compaction aside and uses the history as given');
      if (plan.trigger) {
        const what = compacted.length > 0 ? `replacing ${compacted.length.toLocaleString('en-US')} messages by retain + summary` : 'but nothing older than the turns it keeps would be replaced';
        const model = this.context.llm ? '' : '; no model is configured, so it would fail and change nothing';
        notes.push(`the next payload or checkpoint would compact (${plan.trigger}: ${plan.note}), ${what}${model}; what follows is the payload before it`);
      } else if (plan.note) notes.push(plan.note);
      notes.push(...planned.notes);
      return { dropped: caller(planned.dropped), folded: [], compacted, trimmed: caller(planned.trimmed), payloadTokens: planned.payloadTokens, notes };
    });
  }

  /** Resolves when no call is running and the outputs the calls cached are written to the store. */
  whenIdle(): Promise<void> {
    return this.queue.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stops accepting calls. Cached outputs and transcripts stay in the store. Safe to call twice. */
  dispose(): void {
    this.disposed = true;
  }

  /** The current compaction state (for reports and tests); `undefined` before the first compaction. */
  get compactionState(): Readonly<CompactionState> | undefined {
    return this.compactor.state;
  }

  /** Asks for a compaction at the next hook or payload, as the `compact` tool does. */
  requestCompaction(focus?: string): void {
    this.compactor.request(focus);
  }

  private async compose(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext: string | undefined, options: ComposeOptions): Promise<LLMPayload> {
    this.assertLive();
    // Only the messages appended since the last call are checked (the composer's rule).
    assertHistoryShape(history, this.checked.newFrom(history));
    this.checked.remember(history);
    const turn = this.composeTurns.count(history);
    this.turn = turn;
    if (this.systemMessage.content !== systemPrompt) this.systemMessage = { role: 'system', content: systemPrompt };
    this.compactor.systemPrompt = systemPrompt;
    this.compactor.fixedTokens = this.counter.countMessage(this.systemMessage) + this.counter.countTools(tools) + (ragContext ? this.counter.count(ragContext) : 0);
    this.view.takeNewlyCached();
    // The view is kept from call to call; a compaction lays it over the compacted history without caching again.
    this.view.sync(history, this.compactor.layout(history, turn), turn);
    if (await this.compactor.compactIfDue(history, this.view, turn)) this.view.sync(history, this.compactor.layout(history, turn), turn);
    const composed = await this.composeView(history, { systemPrompt, systemMessage: this.systemMessage, tools, ragContext, options, turn }, this.view, false);
    await this.recordTrims(composed, turn);
    return composed.payload;
  }

  /**
   * Keeps the outputs a payload shows as placeholders for the first time as one trim epoch. Only
   * positions whose view changed since the last payload are looked at, and only those the payload
   * carries (the window's older history changes nothing a payload depends on).
   */
  private async recordTrims(composed: ComposedView, turn: number): Promise<void> {
    const relaid = composed.prepared.relaidPlaceholders;
    const made = composed.fitted.made;
    if (relaid.length === 0 && made.length === 0) return;
    const candidates = made.length === 0 ? relaid : [...relaid, ...made.map((replacement) => replacement.index)];
    const trims = this.trims.take(composed.fitted.messages, candidates, composed.final.window.fromIndex, this.counter);
    if (trims.length === 0) return;
    await this.undoable.record(trimEpoch(trims, composed.fitted.messages, turn), { kind: 'trim', toolCallIds: trims.map((trim) => trim.toolCallId) });
  }

  /** Keeps a compaction as an epoch, with the transcript saved before it and what the compactor knew. */
  private async recordCompaction(done: CompactionDone): Promise<void> {
    await this.undoable.record(compactionEpoch(done.state, done.trigger, done.turn), { kind: 'compaction', transcriptRef: done.state.transcriptRef, compactor: done.before });
  }

  /**
   * The caller's messages a compaction being restored had replaced: the start of the history undone
   * to, or (when that history begins with its retain + summary: the caller had adopted it) the start
   * of the compaction's own transcript, so that a caller passing its full history is recognized too.
   */
  private async coveredBy(previous: SavedCompactionState, history: ReadonlyArray<ChatMessage>): Promise<ChatMessage[]> {
    if (!startsWithPrefix(history, previous.prefix)) return history.slice(0, previous.keepFrom);
    try {
      return (await readTranscript(this.context.store, this.context, previous.transcriptRef)).slice(0, previous.keepFrom);
    } catch {
      // Without it only the adopted form maps onto the compaction; a full history sets it aside.
      return [];
    }
  }

  /** The messages of `history` the compaction of `view` would replace by its retain + summary (what it keeps and carries excluded). */
  private async wouldCompact(view: WorkingView, history: ReadonlyArray<ChatMessage>): Promise<PreviewItem[]> {
    const entries = repairToolPairs(await view.entries());
    const { start, carriedUser } = compactionTail(entries, this.config.compaction.retainLastTurns);
    const carried = carriedUser === undefined ? undefined : entries[carriedUser];
    const items: PreviewItem[] = [];
    for (const entry of entries.slice(0, start)) if (entry.source !== null && entry !== carried) items.push(previewItem(history, entry.source, this.counter));
    return items;
  }

  /**
   * Composes the payload through core's {@link PayloadComposer}: the working view laid over the
   * caller's history is what the composer selects from, the compaction's retain + summary its memory
   * block; {@link fitView} decides which older outputs give way and which of the strategy's tools
   * are offered, on probes composed without events.
   */
  private async composeView(history: ReadonlyArray<ChatMessage>, call: ComposeCall, view: WorkingView, preview: boolean): Promise<ComposedView> {
    const state = view.currentLayout.state;
    // Collapsing older results reads the whole history: the whole view is laid out for it.
    const prepared = await view.prepare(this.budget.available, call.options.collapseOlderToolResults === true);
    const { aligned, log } = prepared;
    const memory = state && aligned.memory.length > 0 ? [compactionMemory(state, aligned.memory, aligned.startIndex)] : [];
    if (state && aligned.displaced !== undefined) {
      log.add('compacted', { from: aligned.displaced }, { reason: compactionReason(state), recoverableFrom: 'transcript', refs: [state.transcriptRef] });
    }
    const cacheOn = this.config.toolOutputCache.enabled;
    // `compact` needs a model to write the summary: without one every call of it could only fail.
    const alwaysOffered = this.config.compaction.enabled && this.context.llm ? [COMPACT_DEFINITION] : [];
    const own = [...(cacheOn ? this.cacheDefinitions : []), ...alwaysOffered];
    const extra: Record<string, unknown> = {};
    // One tool list per choice, the same from probe to probe and from call to call, so that its count is cached.
    const tools = (offerCache: boolean): ToolDefinition[] => this.toolLists.list({ callerTools: call.tools, own, offer: offerCache ? own : alwaysOffered }, offerCache);
    const compose = (messages: ReadonlyArray<ChatMessage>, offerCache: boolean, emitEvents: boolean): ComposedPayload => {
      return this.composer.compose({
        systemPrompt: call.systemPrompt,
        history: messages,
        tools: tools(offerCache),
        ragContext: call.ragContext,
        ...call.options,
        memory,
        startIndex: aligned.startIndex,
        ...(state ? { startReason: compactionReason(state) } : {}),
        reductions: log.list(),
        extra,
        turn: call.turn,
        emitEvents: emitEvents && !preview,
        ...(preview ? { preview } : {}),
      });
    };
    const fitted = fitView({
      aligned,
      region: prepared.region,
      protectFrom: prepared.protectFrom,
      hidesOutput: prepared.hidesOutput,
      log,
      cacheToolTokens: cacheOn ? this.counter.countTools(this.cacheDefinitions) : undefined,
      probe: (messages, offerCache) => compose(messages, offerCache, false),
      tokensAt: (messages, index) => this.composer.ledger.tokensAt(messages, index),
      tokensOf: (message) => this.counter.countMessage(message),
      hides: (message) => view.hides(message),
      withContent: (message, content) => view.withContent(message, content),
      relieveAll: (messages, region, protectFrom, options, relieveLog) => view.relieveAll(messages, region, protectFrom, options, relieveLog),
      microCompact: this.config.microCompact.enabled ? { minContentLength: this.config.microCompact.minContentLength } : undefined,
      ...(this.restored.size > 0 ? { keepWhole: (index: number) => view.keepsWhole(index) } : {}),
      // Without dynamic context or a memory block the room is the budget less the system prompt and the tools, as the composer counts them.
      ...(!call.ragContext && memory.length === 0 && call.options.collapseOlderToolResults !== true
        ? { room: (offerCache: boolean) => this.budget.available - this.counter.countMessage(call.systemMessage) - this.counter.countTools(tools(offerCache)) }
        : {}),
    });

    const toolOutputCache: Record<string, unknown> = {
      enabled: cacheOn,
      budgetTokens: this.toolOutputBudget,
      newlyCached: view.takeNewlyCached(),
      underPressure: fitted.underPressure,
      toolsOffered: fitted.offerCache,
    };
    Object.assign(extra, { toolOutputCache, compaction: this.compactor.stats() });
    // The last probe is the payload when it was composed from the same messages and tools: only its events are left to send.
    const { last } = fitted;
    let final: ComposedPayload;
    if (last && last.messages === fitted.messages && last.offerCache === fitted.offerCache) {
      final = last.composed;
      if (!preview) this.composer.emitComposed(final.payload, call.turn);
    } else final = compose(fitted.messages, fitted.offerCache, true);
    const payload = final.payload;
    // Read against the previous payload (a preview changes nothing the next payload is read against).
    const against = preview ? undefined : this.previousPayload.against(payload.messages);
    toolOutputCache.refsInPayload = preview ? refsIn(payload.messages) : this.payloadRefs.count(payload.messages, against);
    if (final.memory[0] === 'left-out' && !preview) {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(call.turn),
        message: 'The current turn does not fit beside the compaction summary; the summary was left out of this payload (it stays in the saved transcript).',
      });
    }
    const hasUser = call.turn > 0;
    const found = preview ? findPayloadProblems(payload.messages) : this.payloadCheck.problems(payload.messages, against);
    if (!preview) this.previousPayload.remember(payload.messages);
    const problems = found.filter((problem) => hasUser || problem.problem !== 'no-user-message');
    if (problems.length > 0) throw new ProviderPayloadError('openai', problems.map((problem) => `${problem.problem} at ${problem.index}: ${problem.detail}`));
    return { payload, prepared, fitted, final };
  }

  private eventBase(turn: number): CtxkitEventBase {
    return { agentId: this.context.agentId, sessionId: this.context.sessionId, strategyId: this.strategyId, turn };
  }

  private assertLive(): void {
    if (this.disposed) throw new DisposedError(`${this.strategyId} for agent "${this.context.agentId}"`);
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    const store = (): Promise<void> => this.storeCached();
    this.queue = run.then(store, store);
    return run;
  }

  /**
   * Writes the outputs the last call cached, once its answer is delivered (the caller has its payload
   * before the store is written to). The next call, `whenIdle` and every read of a ref wait for it.
   */
  private async storeCached(): Promise<void> {
    if (!this.cache.hasPending) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.outputs.storePending(this.turn);
  }
}
