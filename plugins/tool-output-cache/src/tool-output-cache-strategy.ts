import {
  assertHistoryShape,
  computeBudget,
  DisposedError,
  findPayloadProblems,
  PayloadComposer,
  ProviderPayloadError,
  safeEmit,
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ComposedPayload,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type ContextManagerContract,
  type ContributedTool,
  type CtxkitEventBase,
  type LLMPayload,
  type PayloadBudget,
  type StrategyContext,
  type TokenCounter,
  type TokenUsage,
  type ToolDefinition,
} from '@ctxkit/core';
import { CachedOutputs } from './cache/cached-outputs';
import { COMPACT_DEFINITION, createCacheTools, createCompactTool, TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION } from './cache/cache-tools';
import { offeredTools } from './cache/offered-tools';
import { ToolOutputCache } from './cache/tool-output-cache';
import { toolOutputBudgetTokens } from './cache/tool-output-cache-config';
import { compactionMemory, compactionReason } from './compaction/compaction-memory';
import type { CompactionState } from './compaction/compaction-state';
import { Compactor } from './compaction/compactor';
import { resolveContextLimit } from './compaction/context-limit';
import { countTurns } from './count-turns';
import { resolveToolOutputCacheStrategyConfig, type ResolvedToolOutputCacheStrategyConfig, type ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { alignView } from './view/align-view';
import { fitView } from './view/fit-view';
import { WorkingViewBuilder, type WorkingView } from './view/working-view';

export type { CompactionTrigger } from './compaction/compactor';

/** The plugin id. */
export const TOOL_OUTPUT_CACHE_STRATEGY_ID = 'std-tool-output-cache-strategy';

/** The arguments of one `composePayload`. */
interface ComposeCall {
  systemPrompt: string;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  options: ComposeOptions;
  turn: number;
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
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) at construction, for a model the registry does not know (without `maxContextTokens`)
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) from composePayload when system + tools alone do not fit
 * @see docs/strategies/tool-output-cache.md
 */
export class ToolOutputCacheStrategy implements ContextManagerContract, ContextManagerCapabilities {
  /** Tool outputs are fitted here and kept whole behind refs: an agent loop must not cut them first. */
  readonly truncatesToolOutputs = true;
  readonly strategyId: string;
  readonly config: ResolvedToolOutputCacheStrategyConfig;
  readonly cache: ToolOutputCache;
  /** The context limit (the payload ceiling): `maxContextTokens`, else the model's window. */
  readonly contextLimit: number;
  /** Token budget of all tool outputs. */
  readonly toolOutputBudget: number;
  private readonly model: string;
  private readonly counter: TokenCounter;
  private readonly budget: PayloadBudget;
  private readonly composer: PayloadComposer;
  private readonly outputs: CachedOutputs;
  private readonly views: WorkingViewBuilder;
  private readonly compactor: Compactor;
  private readonly cacheDefinitions: ReadonlyArray<ToolDefinition> = [TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION];
  /** The working view of the last payload (to tell the composer's ledger which positions changed). */
  private lastView: ReadonlyArray<ChatMessage> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(config: ToolOutputCacheStrategyConfig | undefined, private readonly context: StrategyContext) {
    this.config = resolveToolOutputCacheStrategyConfig(config);
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
    this.toolOutputBudget = toolOutputBudgetTokens(this.config.toolOutputCache, this.contextLimit);
    const { maxMessageBytes, maxLineLength } = this.config.toolOutputCache;
    this.cache = new ToolOutputCache({ store: context.store, agentId: context.agentId, sessionId: context.sessionId, maxMessageBytes, maxLineLength });
    const eventBase = (turn: number): CtxkitEventBase => this.eventBase(turn);
    this.outputs = new CachedOutputs({ cache: this.cache, counter: this.counter, events: context.events, eventBase });
    this.views = new WorkingViewBuilder({ config: this.config, counter: this.counter, outputs: this.outputs, toolOutputBudget: this.toolOutputBudget });
    const outputs = this.config.toolOutputCache.enabled ? this.outputs : undefined;
    const { strategyId, model, counter, contextLimit } = this;
    this.compactor = new Compactor({ config: this.config.compaction, context, strategyId, model, counter, contextLimit, outputs, eventBase });
  }

  /** Builds the payload: system, dynamic context, retain + summary, and the working view fitted to the budget. */
  composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options: ComposeOptions = {}): Promise<LLMPayload> {
    return this.serialize(() => this.compose(systemPrompt, history, tools, ragContext, options));
  }

  /** Caches the tool outputs of the finished turn, so that the next payload finds them stored. */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.serialize(async () => {
      this.assertLive();
      if (!this.config.toolOutputCache.enabled) return;
      const turn = countTurns(newHistory);
      for (const message of newHistory) if (message.role === 'tool') await this.outputs.ensure(message, turn);
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
      const view = (): Promise<WorkingView> => {
        const turn = countTurns(history);
        return this.views.build(this.compactor.map(history, turn), turn);
      };
      return this.compactor.check(checkpoint, history, usage, view);
    });
  }

  /** Resolves when no call is running. */
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
    assertHistoryShape(history);
    this.compactor.systemPrompt = systemPrompt;
    const turn = countTurns(history);
    // The view is built once; a compaction re-lays it over the compacted history without caching again.
    let view = await this.views.build(this.compactor.map(history, turn), turn);
    const fixedTokens = this.counter.countMessages([{ role: 'system', content: systemPrompt }]) + this.counter.countTools(tools) + (ragContext ? this.counter.count(ragContext) : 0);
    if (await this.compactor.compactIfDue(history, view, fixedTokens)) view = this.views.rebase(view, this.compactor.map(history, turn));
    return this.composeView(history, view, { systemPrompt, tools, ragContext, options, turn });
  }

  /**
   * Composes the payload through core's {@link PayloadComposer}: the working view laid over the
   * caller's history is what the composer selects from, the compaction's retain + summary its memory
   * block; {@link fitView} decides which older outputs give way and which of the strategy's tools
   * are offered, on probes composed without events.
   */
  private composeView(history: ReadonlyArray<ChatMessage>, view: WorkingView, call: ComposeCall): LLMPayload {
    const state = this.compactor.state;
    const aligned = alignView(view.entries, history);
    const memory = state && aligned.memory.length > 0 ? [compactionMemory(state, aligned.memory, aligned.startIndex)] : [];
    const { log } = view;
    if (state && aligned.displaced !== undefined) {
      log.add('compacted', { from: aligned.displaced }, { reason: compactionReason(state), recoverableFrom: 'transcript', refs: [state.transcriptRef] });
    }
    const cacheOn = this.config.toolOutputCache.enabled;
    // `compact` needs a model to write the summary: without one every call of it could only fail.
    const alwaysOffered = this.config.compaction.enabled && this.context.llm ? [COMPACT_DEFINITION] : [];
    const own = [...(cacheOn ? this.cacheDefinitions : []), ...alwaysOffered];
    const extra: Record<string, unknown> = {};
    const compose = (messages: ReadonlyArray<ChatMessage>, offerCache: boolean, emitEvents: boolean): ComposedPayload => {
      this.forgetChanged(messages);
      return this.composer.compose({
        systemPrompt: call.systemPrompt,
        history: messages,
        tools: offeredTools({ callerTools: call.tools, own, offer: offerCache ? own : alwaysOffered }),
        ragContext: call.ragContext,
        ...call.options,
        memory,
        startIndex: aligned.startIndex,
        ...(state ? { startReason: compactionReason(state) } : {}),
        reductions: log.list(),
        extra,
        turn: call.turn,
        emitEvents,
      });
    };
    const fitted = fitView({
      aligned,
      entries: view.entries,
      log,
      cacheToolTokens: cacheOn ? this.counter.countTools(this.cacheDefinitions) : undefined,
      probe: (messages, offerCache) => compose(messages, offerCache, false),
      tokensAt: (messages, index) => this.composer.ledger.tokensAt(messages, index),
      tokensOf: (message) => this.counter.countMessage(message),
      hidesOutput: (messages, from) => this.views.hidesOutput(messages, from),
      withContent: (message, content) => this.views.withContent(message, content),
      microCompact: this.config.microCompact.enabled ? { minContentLength: this.config.microCompact.minContentLength } : undefined,
    });

    const toolOutputCache: Record<string, unknown> = {
      enabled: cacheOn,
      budgetTokens: this.toolOutputBudget,
      newlyCached: view.newlyCached,
      underPressure: fitted.underPressure,
      toolsOffered: fitted.offerCache,
    };
    Object.assign(extra, { toolOutputCache, compaction: this.compactor.stats() });
    const final = compose(fitted.messages, fitted.offerCache, true);
    const payload = final.payload;
    toolOutputCache.refsInPayload = payload.messages.filter((message) => message.role === 'tool' && message.output_ref).length;
    if (final.memory[0] === 'left-out') {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(call.turn),
        message: 'The current turn does not fit beside the compaction summary; the summary was left out of this payload (it stays in the saved transcript).',
      });
    }
    const hasUser = history.some((message) => message.role === 'user');
    const problems = findPayloadProblems(payload.messages).filter((problem) => hasUser || problem.problem !== 'no-user-message');
    if (problems.length > 0) throw new ProviderPayloadError('openai', problems.map((problem) => `${problem.problem} at ${problem.index}: ${problem.detail}`));
    return payload;
  }

  /** Tells the composer's ledger which positions of the view hold another message than last time. */
  private forgetChanged(messages: ReadonlyArray<ChatMessage>): void {
    const previous = this.lastView;
    this.lastView = messages;
    if (!previous) return;
    const shared = Math.min(previous.length, messages.length);
    for (let index = 0; index < shared; index++) if (previous[index] !== messages[index]) this.composer.ledger.invalidate(index);
  }

  private eventBase(turn: number): CtxkitEventBase {
    return { agentId: this.context.agentId, sessionId: this.context.sessionId, strategyId: this.strategyId, turn };
  }

  private assertLive(): void {
    if (this.disposed) throw new DisposedError(`${this.strategyId} for agent "${this.context.agentId}"`);
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
