import {
  assertHistoryShape,
  computeBudget,
  contentText,
  CtxkitError,
  DisposedError,
  findPayloadProblems,
  LLMNotConfiguredError,
  LLMResponseError,
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
  type ToolMessage,
  type UserMessage,
} from '@ctxkit/core';
import { alignView } from './align-view';
import { CachedOutputs, type CachedInfo } from './cached-outputs';
import { COMPACT_DEFINITION, createCacheTools, createCompactTool, TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION } from './cache-tools';
import { compactMessages } from './compact-messages';
import { compactionMemory, compactionReason } from './compaction-memory';
import { continuesCovered, startsWithPrefix, type CompactionState } from './compaction-state';
import { resolveContextLimit } from './context-limit';
import { currentTurnStart } from './current-turn';
import { isMicroCompacted, microCompact } from './micro-compact';
import { affordsExpandTools, offeredTools } from './offered-tools';
import { ReductionLog } from './reduction-log';
import { relievePressure } from './relieve-pressure';
import { repairToolPairs } from './repair-tool-pairs';
import { saveTranscript } from './save-transcript';
import { shouldCompact } from './should-compact';
import { compactionTail } from './tail-turns';
import { ToolOutputCache } from './tool-output-cache';
import { toolOutputBudgetTokens } from './tool-output-cache-config';
import { resolveToolOutputCacheStrategyConfig, type ResolvedToolOutputCacheStrategyConfig, type ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { summaryInput } from './summary-input';
import { isTrimmed, trimToolOutputs } from './trim-tool-outputs';
import { underPressure } from './under-pressure';
import { looksBinary, utf8ByteLength } from './utf8-text';
import { ViewCopies } from './view-copies';
import type { ViewEntry } from './view-entry';

/** The plugin id. */
export const TOOL_OUTPUT_CACHE_STRATEGY_ID = 'std-tool-output-cache-strategy';

/** What caused a compaction. */
export type CompactionTrigger = 'auto' | 'manual' | 'budget';

interface ComposedView {
  entries: ViewEntry[];
  log: ReductionLog;
  newlyCached: number;
}

/** The arguments of one `composePayload`. */
interface ComposeCall {
  systemPrompt: string;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  options: ComposeOptions;
  turn: number;
}

const REF_IN_TEXT_ONCE = /to_[0-9a-f]{32}/;

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
  readonly strategyId: string;
  readonly config: ResolvedToolOutputCacheStrategyConfig;
  readonly cache: ToolOutputCache;
  private readonly model: string;
  private readonly counter: TokenCounter;
  /** The context limit (the payload ceiling): `maxContextTokens`, else the model's window. */
  readonly contextLimit: number;
  private readonly contextWindow: number;
  private readonly baseBudget: PayloadBudget;
  /** Token budget of all tool outputs. */
  readonly toolOutputBudget: number;
  private readonly composer: PayloadComposer;
  private readonly cacheDefinitions: ReadonlyArray<ToolDefinition> = [TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION];
  private readonly outputs: CachedOutputs;
  private readonly copies = new ViewCopies();
  /** View messages that show their whole output (the others hide part of it behind their ref). */
  private readonly wholeViews = new WeakSet<ChatMessage>();
  /** The working view of the last payload (to tell the composer's ledger which positions changed). */
  private lastView: ReadonlyArray<ChatMessage> | undefined;
  private compaction: CompactionState | undefined;
  private guardMinTokens = 0;
  private lastUsage: TokenUsage | undefined;
  private manualRequest: { focus: string | undefined } | undefined;
  private lastSystemPrompt = '';
  private lastCompactionError: { code: string; message: string; trigger: CompactionTrigger } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(config: ToolOutputCacheStrategyConfig | undefined, private readonly context: StrategyContext) {
    this.config = resolveToolOutputCacheStrategyConfig(config);
    this.strategyId = context.strategyId || TOOL_OUTPUT_CACHE_STRATEGY_ID;
    this.model = this.config.model ?? context.model;
    this.counter = this.model === context.model ? context.counter : context.counterFor(this.model);
    this.contextLimit = resolveContextLimit(context.models, this.model, this.config.maxContextTokens);
    this.contextWindow = context.models.find(this.model)?.contextWindow ?? this.contextLimit;
    this.baseBudget = computeBudget({
      contextWindow: this.contextWindow,
      maxContextTokens: this.config.maxContextTokens,
      reserveOutputTokens: this.config.reserveOutputTokens,
      safetyMarginRatio: this.config.safetyMarginRatio,
    });
    this.composer = new PayloadComposer({
      owner: { agentId: context.agentId, sessionId: context.sessionId, strategyId: this.strategyId, events: context.events },
      model: this.model,
      counter: this.counter,
      budget: () => this.baseBudget,
    });
    this.toolOutputBudget = toolOutputBudgetTokens(this.config.toolOutputCache, this.contextLimit);
    this.cache = new ToolOutputCache({
      store: context.store,
      agentId: context.agentId,
      sessionId: context.sessionId,
      maxMessageBytes: this.config.toolOutputCache.maxMessageBytes,
      maxLineLength: this.config.toolOutputCache.maxLineLength,
    });
    this.outputs = new CachedOutputs({ cache: this.cache, counter: this.counter, events: context.events, eventBase: (turn) => this.eventBase(turn) });
  }

  // ---- IContextManager ------------------------------------------------------------------------

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

  // ---- capabilities ---------------------------------------------------------------------------

  /**
   * `tool_output_cache` and `tool_output_cache_grep` (when the cache is on) and `compact` (when
   * compaction is on), for the host to register once. A payload carries the expand and grep
   * definitions only while it holds an output that is not shown whole (a host that passes them in
   * `tools` has them left out until then).
   */
  contributedTools(): ContributedTool[] {
    const tools: ContributedTool[] = [];
    if (this.config.toolOutputCache.enabled) tools.push(...createCacheTools(this.cache));
    if (this.config.compaction.enabled) tools.push(createCompactTool((focus) => (this.manualRequest = { focus })));
    return tools;
  }

  /**
   * Called after an LLM call (with its usage), after tool execution (decides on the
   * last usage) and before the final return. A pending `compact` tool request runs first. Returns the
   * compacted history when compaction happened; callers continue with it (or keep passing their full
   * history: the strategy maps it onto the compacted view).
   */
  checkCompaction(checkpoint: CompactionCheckpoint, history: ReadonlyArray<ChatMessage>, usage?: TokenUsage): Promise<CompactionHookResult> {
    return this.serialize(async () => {
      this.assertLive();
      if (usage) this.lastUsage = usage;
      if (this.manualRequest) return this.runCompaction(history, 'manual', this.manualRequest.focus);
      const config = this.config.compaction;
      if (!config.enabled || !config.auto) return { compacted: false, reason: 'automatic compaction is off' };
      const decideOn = checkpoint === 'after-llm-call' ? (usage ?? this.lastUsage) : (this.lastUsage ?? usage);
      if (!decideOn) return { compacted: false, reason: 'no usage reported yet' };
      if (!shouldCompact(decideOn, this.contextLimit, config)) return { compacted: false, reason: 'below the compaction threshold' };
      const view = await this.buildView(history, countTurns(history));
      const tokens = this.sumTokens(view.entries);
      if (tokens < this.guardMinTokens) return { compacted: false, reason: `anti-loop guard: waiting until the history reaches ${this.guardMinTokens} tokens` };
      return this.runCompaction(history, 'auto');
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
    return this.compaction;
  }

  /** Asks for a compaction at the next hook or payload, as the `compact` tool does. */
  requestCompaction(focus?: string): void {
    this.manualRequest = { focus };
  }

  // ---- composition ----------------------------------------------------------------------------

  private async compose(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext: string | undefined, options: ComposeOptions): Promise<LLMPayload> {
    this.assertLive();
    assertHistoryShape(history);
    this.lastSystemPrompt = systemPrompt;
    const turn = countTurns(history);
    let view = await this.buildView(history, turn);
    const fixedTokens = this.counter.countMessages([{ role: 'system', content: systemPrompt }]) + this.counter.countTools(tools) + (ragContext ? this.counter.count(ragContext) : 0);
    if (await this.compactIfDue(history, view, fixedTokens)) view = await this.buildView(history, turn);
    return this.composeView(history, view, { systemPrompt, tools, ragContext, options, turn });
  }

  /** Runs a requested compaction, or an automatic one when the estimate passes the threshold. True when the history was compacted. */
  private async compactIfDue(history: ReadonlyArray<ChatMessage>, view: ComposedView, fixedTokens: number): Promise<boolean> {
    const config = this.config.compaction;
    if (!config.enabled) return false;
    if (this.manualRequest) return (await this.runCompaction(history, 'manual', this.manualRequest.focus)).compacted;
    if (!config.auto) return false;
    const historyTokens = this.sumTokens(view.entries);
    const total = fixedTokens + historyTokens;
    const estimate = { input_tokens: total, output_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, total_tokens: total };
    if (!shouldCompact(estimate, this.contextLimit, config) || historyTokens < this.guardMinTokens) return false;
    return (await this.runCompaction(history, 'auto')).compacted;
  }

  /**
   * Composes the payload through core's {@link PayloadComposer}: the working view laid over the
   * caller's history is what the composer selects from, the compaction's retain + summary its memory
   * block. When the view does not fit (the composer would drop or cut history, or shorten the
   * summary), older outputs become placeholders, oldest first and only as many as needed, and the
   * payload is composed again. The expand and grep tools are offered only while the payload holds
   * an output that is not shown whole.
   */
  private composeView(history: ReadonlyArray<ChatMessage>, view: ComposedView, call: ComposeCall): LLMPayload {
    const state = this.compaction;
    const aligned = alignView(view.entries, history);
    const memory = state && aligned.memory.length > 0 ? [compactionMemory(state, aligned.memory, aligned.startIndex)] : [];
    const { log } = view;
    if (state && aligned.displaced !== undefined) {
      log.add('compacted', { from: aligned.displaced }, { reason: compactionReason(state), recoverableFrom: 'transcript', refs: [state.transcriptRef] });
    }
    const cacheTools = this.config.toolOutputCache.enabled ? this.cacheDefinitions : [];
    // `compact` needs a model to write the summary: without one every call of it could only fail.
    const alwaysOffered = this.config.compaction.enabled && this.context.llm ? [COMPACT_DEFINITION] : [];
    const own = [...cacheTools, ...alwaysOffered];
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

    let messages: ReadonlyArray<ChatMessage> = aligned.messages;
    const memoryRefs = aligned.memory.some((message) => REF_IN_TEXT_ONCE.test(contentText(message.content)));
    let offerCache = cacheTools.length > 0 && (memoryRefs || this.hidesOutput(messages, aligned.startIndex));
    let composed = compose(messages, offerCache, false);
    const cacheToolTokens = cacheTools.length > 0 ? this.counter.countTools(cacheTools) : 0;
    // The room without the expand tools decides whether they are worth their tokens at all.
    const affordable = cacheTools.length > 0 && affordsExpandTools(cacheToolTokens, composed.roomTokens + (offerCache ? cacheToolTokens : 0));
    if (offerCache && !affordable) {
      offerCache = false;
      composed = compose(messages, offerCache, false);
    }
    const pressure = underPressure(composed);
    if (pressure) {
      const toolRoom = affordable && !offerCache ? cacheToolTokens : 0;
      const current = currentTurnStart(view.entries);
      const currentEntry = view.entries[current];
      const turnStart = currentEntry === undefined ? messages.length : currentEntry.carried || currentEntry.source === null ? aligned.startIndex : currentEntry.source;
      const relieved = relievePressure(messages, {
        from: aligned.startIndex,
        protectFrom: turnStart,
        targetTokens: composed.roomTokens - composed.payload.stats.sections.memory - toolRoom,
        tokensAt: (index) => this.composer.ledger.tokensAt(messages, index),
        tokensOf: (message) => this.counter.countMessage(message),
        microCompact: this.config.microCompact.enabled ? { minContentLength: this.config.microCompact.minContentLength } : undefined,
        showRefs: affordable,
        withContent: (message, content) => this.copies.withContent(message, content),
        log,
      });
      if (relieved.replaced > 0) {
        messages = relieved.messages;
        offerCache = affordable && (offerCache || this.hidesOutput(messages, aligned.startIndex));
        composed = compose(messages, offerCache, false);
      }
    }
    if (!offerCache && affordable && this.hidesOutput(composed.payload.messages, 0)) {
      // The window cut an output of the current turn: its ref is worth expanding.
      offerCache = true;
      composed = compose(messages, offerCache, false);
    }

    Object.assign(extra, {
      toolOutputCache: {
        enabled: this.config.toolOutputCache.enabled,
        budgetTokens: this.toolOutputBudget,
        newlyCached: view.newlyCached,
        underPressure: pressure,
        toolsOffered: offerCache,
      },
      compaction: {
        contextLimit: this.contextLimit,
        threshold: Math.floor(this.contextLimit * this.config.compaction.thresholdRatio),
        count: state?.count ?? 0,
        transcriptRef: state?.transcriptRef ?? null,
        guardMinTokens: this.guardMinTokens,
        lastError: this.lastCompactionError ?? null,
      },
    });
    const final = compose(messages, offerCache, true);
    const payload = final.payload;
    (extra.toolOutputCache as Record<string, unknown>).refsInPayload = payload.messages.filter((message) => message.role === 'tool' && message.output_ref).length;
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

  /** True when a tool message from `from` on carries a ref but does not show its whole output (a view, a placeholder, a cut). */
  private hidesOutput(messages: ReadonlyArray<ChatMessage>, from: number): boolean {
    for (let index = from; index < messages.length; index++) {
      const message = messages[index]!;
      if (message.role === 'tool' && message.output_ref && !this.wholeViews.has(message)) return true;
    }
    return false;
  }

  /** Tells the composer's ledger which positions of the view hold another message than last time. */
  private forgetChanged(messages: ReadonlyArray<ChatMessage>): void {
    const previous = this.lastView;
    this.lastView = messages;
    if (!previous) return;
    const shared = Math.min(previous.length, messages.length);
    for (let index = 0; index < shared; index++) if (previous[index] !== messages[index]) this.composer.ledger.invalidate(index);
  }

  /**
   * The working view of a caller's history: mapped onto the compaction (when any), tool outputs
   * cached and shown as views, micro-compacted when `microCompact.when` is `always`, and trimmed to
   * the tool output budget.
   */
  private async buildView(history: ReadonlyArray<ChatMessage>, turn: number): Promise<ComposedView> {
    const log = new ReductionLog();
    let entries = this.mapHistory(history, turn);
    let newlyCached = 0;
    const infos = new Map<ChatMessage, CachedInfo>();
    if (this.config.toolOutputCache.enabled) {
      for (let index = 0; index < entries.length; index++) {
        const entry = entries[index]!;
        if (entry.message.role !== 'tool') continue;
        const original = entry.message;
        const { info, stored } = await this.outputs.ensure(original, turn);
        if (!info) continue;
        if (stored) newlyCached++;
        // An output within the per-message size whose view only cut long lines is shown whole:
        // like every other reduction, the view's cut waits for budget pressure (which turns older
        // outputs into placeholders). With `microCompact.when: "always"` views are always used.
        const raw = contentText(original.content);
        const wholeFits = info.viewTruncated && this.config.microCompact.when !== 'always' && utf8ByteLength(raw) <= this.config.toolOutputCache.maxMessageBytes && !looksBinary(raw);
        const message = this.copies.withContent(original, wholeFits ? raw : info.viewText, info.ref);
        const cut = info.viewTruncated && !wholeFits;
        if (!cut && !isPlaceholder(message)) this.wholeViews.add(message);
        infos.set(message, info);
        entries[index] = { ...entry, message };
        if (cut && entry.source !== null) {
          log.add('truncated', { from: entry.source }, {
            reason: 'tool output shown as an in-context view',
            recoverableFrom: 'tool-output-cache',
            refs: [info.ref.id],
            tokensBefore: info.rawTokens,
          });
        }
      }
    }
    if (this.config.microCompact.when === 'always') {
      entries = microCompact(
        entries,
        this.config.microCompact,
        (entry) => infos.get(entry.message)?.originalLength ?? contentText(entry.message.content as ToolMessage['content']).length,
        log,
        (message, content) => this.copies.withContent(message, content),
      );
    }
    if (this.config.toolOutputCache.enabled) {
      entries = trimToolOutputs(entries, {
        budgetTokens: this.toolOutputBudget,
        tokensOf: (message) => this.toolTokens(message),
        log,
        // The current turn's outputs reach the model as text; a current turn too big for the
        // payload is fitted by the window selection (head + tail cut), never by a placeholder.
        protectFrom: currentTurnStart(entries),
        withContent: (message, content) => this.copies.withContent(message, content),
      }).entries;
    }
    return { entries, log, newlyCached };
  }

  /** Maps the caller's history onto the compaction: the compacted view whether the caller passes its full or its compacted history. */
  private mapHistory(history: ReadonlyArray<ChatMessage>, turn: number): ViewEntry[] {
    const state = this.compaction;
    if (state) {
      // A user message carried after the summary is the caller's own message: it keeps a source, so
      // that the window selection treats it as the current turn's start and a later compaction finds it.
      const memory = state.prefix.length - (state.carriedSource === undefined ? 0 : 1);
      if (startsWithPrefix(history, state.prefix)) {
        return history.map((message, index) => ({ message, source: index < memory ? null : index }));
      }
      if (continuesCovered(history, state)) {
        const entries: ViewEntry[] = state.prefix.slice(0, memory).map((message) => ({ message, source: null }));
        if (state.carriedSource !== undefined) entries.push({ message: state.prefix[memory]!, source: state.carriedSource, carried: true });
        for (let index = state.keepFrom; index < history.length; index++) entries.push({ message: history[index]!, source: index });
        return entries;
      }
      this.compaction = undefined;
      this.guardMinTokens = 0;
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(turn),
        message: 'The history no longer continues the compacted conversation; the compaction was set aside and the history is used as given.',
      });
    }
    return history.map((message, index) => ({ message, source: index }));
  }

  // ---- compaction -----------------------------------------------------------------------------

  /**
   * `checkAndCompact`: saves the transcript, has the model write retain + summary,
   * and replaces everything before the last `retainLastTurns` turns. A failure, or a result that
   * does not shrink the history, changes nothing, is reported, and arms the anti-loop guard.
   */
  private async runCompaction(history: ReadonlyArray<ChatMessage>, trigger: CompactionTrigger, focus?: string): Promise<CompactionHookResult> {
    this.manualRequest = undefined;
    const config = this.config.compaction;
    const turn = countTurns(history);
    const base = this.eventBase(turn);
    if (!config.enabled) return { compacted: false, reason: 'compaction is disabled' };
    const view = await this.buildView(history, turn);
    const entries = repairToolPairs(view.entries);
    const tokensBefore = this.sumTokens(entries);
    safeEmit(this.context.events, 'compaction-start', { ...base, trigger, tokensBefore });
    const fail = (error: unknown): CompactionHookResult => {
      const code = CtxkitError.isInstance(error) ? error.code : 'CTXKIT_STRATEGY_ERROR';
      const message = error instanceof Error ? error.message : String(error);
      this.lastCompactionError = { code, message, trigger };
      this.guardMinTokens = tokensBefore + config.retryAfterTokens;
      safeEmit(this.context.events, 'compaction-error', { ...base, trigger, error: { code, message } });
      return { compacted: false, reason: message };
    };
    const llm = this.context.llm;
    if (!llm) return fail(new LLMNotConfiguredError(`${this.strategyId} compaction`));

    let transcriptRef: string;
    try {
      transcriptRef = (await saveTranscript(this.context.store, this.context, history, this.context.now())).ref;
    } catch (error) {
      return fail(error);
    }

    const { start: tailStart, carriedUser } = compactionTail(entries, config.retainLastTurns);
    let tail = entries.slice(tailStart);
    let carried = carriedUser === undefined ? undefined : entries[carriedUser];
    if (carried?.source === null) carried = undefined;
    if (tail[0]?.carried) {
      // The user message an earlier compaction carried starts the kept part: carry it again, since
      // it does not sit right before the kept messages in the caller's history.
      carried = tail[0];
      tail = tail.slice(1);
    }
    let reply: { retain: string; summary: string };
    try {
      const input = this.summaryMessages(entries, config.model);
      reply = await compactMessages(input, { llm, callerModel: this.model, config, systemPrompt: this.lastSystemPrompt || undefined, focus });
    } catch (error) {
      return fail(error);
    }

    const prefix: UserMessage[] = [];
    if (reply.retain.trim() !== '') prefix.push({ role: 'user', content: reply.retain });
    prefix.push({ role: 'user', content: reply.summary });
    if (carried) prefix.push({ ...(carried.message as UserMessage) });
    const tokensAfter = this.counter.countMessages(prefix) + this.sumTokens(tail);
    if (tokensAfter >= tokensBefore) {
      return fail(
        new LLMResponseError(`the compaction result (${tokensAfter} tokens) is not smaller than the history it replaces (${tokensBefore} tokens)`, {
          client: llm.name,
          model: config.model ?? this.model,
        }),
      );
    }

    // Commit: from here on the caller's history maps onto prefix + kept turns.
    const firstKept = tail.find((entry) => entry.source !== null);
    const keepFrom = firstKept ? firstKept.source! : history.length;
    this.compaction = {
      prefix,
      keepFrom,
      covered: history.slice(0, keepFrom),
      transcriptRef,
      tokensBefore,
      tokensAfter,
      count: (this.compaction?.count ?? 0) + 1,
      ...(carried ? { carriedSource: carried.source! } : {}),
    };
    this.guardMinTokens = tokensAfter + config.retryAfterTokens;
    this.lastUsage = undefined;
    this.lastCompactionError = undefined;
    const compacted = [...prefix, ...history.slice(keepFrom)];
    if (this.config.toolOutputCache.enabled) await this.outputs.collect(compacted, reply, turn);
    safeEmit(this.context.events, 'compaction-end', { ...base, trigger, tokensBefore, tokensAfter, transcriptRef, messages: compacted });
    return { compacted: true, messages: compacted, reason: `${trigger} compaction: ${tokensBefore} → ${tokensAfter} tokens; transcript ${transcriptRef}` };
  }

  /** The summary call's messages: the view, oldest units left out (they are in the transcript) until it fits the summary model. */
  private summaryMessages(entries: ReadonlyArray<ViewEntry>, summaryModel: string | null): ChatMessage[] {
    const limit = summaryModel ? this.context.models.get(summaryModel).contextWindow : this.contextLimit;
    const counter = summaryModel ? this.context.counterFor(summaryModel) : this.counter;
    const available = Math.floor(limit * 0.9) - this.config.compaction.maxSummaryTokens - counter.count(this.lastSystemPrompt) - 1024;
    return summaryInput(entries, available, counter);
  }

  // ---- small parts ----------------------------------------------------------------------------

  /** Tokens of a tool message for the tool output budget: the real tokenizer, or bytes/4 without one. */
  private toolTokens(message: ToolMessage): number {
    if (this.counter.meta().strategy === 'heuristic') return Math.ceil(utf8ByteLength(contentText(message.content)) / 4) + 4;
    return this.counter.countMessage(message);
  }

  private sumTokens(entries: ReadonlyArray<ViewEntry>): number {
    let total = 0;
    for (const entry of entries) total += this.counter.countMessage(entry.message);
    return total;
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

/** True when a tool message shows a placeholder instead of its output. */
function isPlaceholder(message: ToolMessage): boolean {
  return isTrimmed(message) || isMicroCompacted(message);
}

/** Turn number for events: the count of user messages. */
function countTurns(history: ReadonlyArray<ChatMessage>): number {
  let turns = 0;
  for (const message of history) if (message.role === 'user') turns++;
  return turns;
}
