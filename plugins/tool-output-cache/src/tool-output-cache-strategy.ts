import {
  assertHistoryShape,
  BudgetExceededError,
  buildPayload,
  computeBudget,
  contentText,
  CtxkitError,
  DisposedError,
  findPayloadProblems,
  groupAt,
  HistoryLedger,
  LLMNotConfiguredError,
  LLMResponseError,
  ProviderPayloadError,
  safeEmit,
  selectHistoryWindow,
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ContextManagerCapabilities,
  type ContextManagerContract,
  type ContributedTool,
  type CtxkitEventBase,
  type HistoryWindow,
  type LLMPayload,
  type PayloadBudget,
  type StrategyContext,
  type TokenCounter,
  type TokenUsage,
  type ToolDefinition,
  type ToolMessage,
  type ToolOutputRef,
  type UserMessage,
} from '@ctxkit/core';
import { createCacheTools, createCompactTool } from './cache-tools';
import { compactMessages } from './compact-messages';
import { continuesCovered, startsWithPrefix, type CompactionState } from './compaction-state';
import { resolveContextLimit } from './context-limit';
import { currentTurnStart } from './current-turn';
import { microCompact } from './micro-compact';
import { ReductionLog } from './reduction-log';
import { repairToolPairs } from './repair-tool-pairs';
import { saveTranscript } from './save-transcript';
import { shouldCompact } from './should-compact';
import { compactionTail } from './tail-turns';
import { ToolOutputCache } from './tool-output-cache';
import { toolOutputBudgetTokens } from './tool-output-cache-config';
import { resolveToolOutputCacheStrategyConfig, type ResolvedToolOutputCacheStrategyConfig, type ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { isToolOutputRefId } from './tool-output-ref-id';
import { trimToolOutputs } from './trim-tool-outputs';
import { utf8ByteLength } from './utf8-text';
import type { ViewEntry } from './view-entry';

/** The plugin id. */
export const TOOL_OUTPUT_CACHE_STRATEGY_ID = 'std-tool-output-cache-strategy';

/** What caused a compaction. */
export type CompactionTrigger = 'auto' | 'manual' | 'budget';

interface CachedInfo {
  ref: ToolOutputRef;
  viewText: string;
  viewTruncated: boolean;
  /** Characters of the original content (micro-compact's length rule). */
  originalLength: number;
  /** Tokens of the original output (exact when small, bytes/4 when it had to be cut). */
  rawTokens: number;
}

interface ComposedView {
  entries: ViewEntry[];
  log: ReductionLog;
  newlyCached: number;
}

const REF_IN_TEXT = /to_[0-9a-f]{32}/g;

/**
 * `std-tool-output-cache-strategy` (seeds 000 and 001): tool outputs cached in full with in-context
 * views and `[tool output trimmed; ref=…]` placeholders, micro-compact of old results, and
 * compaction to retain + summary + the last turns with the transcript saved first. The payload is
 * fitted to the budget; every view, placeholder, drop and compaction is reported in
 * `stats.reductions` and as an event.
 *
 * Hook points (seed 000 §2.8): {@link checkCompaction} after each LLM call (with its usage), after
 * tool execution (using the last usage) and before the final return. Contributed tools:
 * `tool_output_cache`, `tool_output_cache_grep`, `compact`.
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
  /** The context limit of seed 000 §2.4 (the payload ceiling). */
  readonly contextLimit: number;
  private readonly contextWindow: number;
  private readonly baseBudget: PayloadBudget;
  /** Token budget of all tool outputs (seed 000 §1.3). */
  readonly toolOutputBudget: number;
  private readonly cached = new WeakMap<ChatMessage, CachedInfo>();
  private readonly copies = new WeakMap<ChatMessage, Map<string, ToolMessage>>();
  private readonly collectedRefs = new Set<string>();
  /** Per-position counts of the history view, so a turn measures only what is new or changed. */
  private readonly ledger: HistoryLedger;
  /** The history view of the last selection (to tell the ledger which positions changed). */
  private windowInput: ChatMessage[] | undefined;
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
    this.ledger = new HistoryLedger(this.counter);
    this.toolOutputBudget = toolOutputBudgetTokens(this.config.toolOutputCache, this.contextLimit);
    this.cache = new ToolOutputCache({
      store: context.store,
      agentId: context.agentId,
      sessionId: context.sessionId,
      maxMessageBytes: this.config.toolOutputCache.maxMessageBytes,
      maxLineLength: this.config.toolOutputCache.maxLineLength,
    });
  }

  // ---- IContextManager ------------------------------------------------------------------------

  /** Builds the payload: system, dynamic context, retain + summary, and the history view fitted to the budget. */
  composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string): Promise<LLMPayload> {
    return this.serialize(() => this.compose(systemPrompt, history, tools, ragContext));
  }

  /** Caches the tool outputs of the finished turn, so that the next payload finds them stored. */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.serialize(async () => {
      this.assertLive();
      if (!this.config.toolOutputCache.enabled) return;
      const turn = countTurns(newHistory);
      for (const message of newHistory) if (message.role === 'tool') await this.ensureCached(message, turn);
    });
  }

  // ---- capabilities ---------------------------------------------------------------------------

  /** `tool_output_cache` and `tool_output_cache_grep` (when the cache is on) and `compact` (when compaction is on). */
  contributedTools(): ContributedTool[] {
    const tools: ContributedTool[] = [];
    if (this.config.toolOutputCache.enabled) tools.push(...createCacheTools(this.cache));
    if (this.config.compaction.enabled) tools.push(createCompactTool((focus) => (this.manualRequest = { focus })));
    return tools;
  }

  /**
   * Seed 000 §2.8: called after an LLM call (with its usage), after tool execution (decides on the
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

  private async compose(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string): Promise<LLMPayload> {
    this.assertLive();
    assertHistoryShape(history);
    this.lastSystemPrompt = systemPrompt;
    const turn = countTurns(history);
    const sendTools = this.mergeTools(tools);
    const system: ChatMessage[] = [{ role: 'system', content: systemPrompt }];
    const dynamic: ChatMessage[] = ragContext && ragContext.trim() !== '' ? [{ role: 'system', content: `Relevant context:\n${ragContext}` }] : [];
    const systemTokens = this.counter.countMessages(system);
    const dynamicTokens = this.counter.countMessages(dynamic);
    const toolTokens = this.counter.countTools(sendTools);
    const fixedTokens = systemTokens + dynamicTokens + toolTokens;
    const available = this.baseBudget.available;
    if (fixedTokens > available) {
      throw new BudgetExceededError(this.strategyId, {
        available,
        required: fixedTokens,
        sections: { system: systemTokens, dynamic: dynamicTokens, tools: toolTokens },
      });
    }

    let view = await this.buildView(history, turn);
    const compactionConfig = this.config.compaction;
    if (this.manualRequest && compactionConfig.enabled) {
      const result = await this.runCompaction(history, 'manual', this.manualRequest.focus);
      if (result.compacted) view = await this.buildView(history, turn);
    } else if (compactionConfig.enabled && compactionConfig.auto) {
      const historyTokens = this.sumTokens(view.entries);
      const estimate = { input_tokens: fixedTokens + historyTokens, output_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, total_tokens: fixedTokens + historyTokens };
      if (shouldCompact(estimate, this.contextLimit, compactionConfig) && historyTokens >= this.guardMinTokens) {
        const result = await this.runCompaction(history, 'auto');
        if (result.compacted) view = await this.buildView(history, turn);
      }
    }

    // The compaction's retain + summary are the memory block; everything with a source in the
    // caller's history (a carried user message too) is history, fitted by core's window selection.
    const log = view.log;
    let memoryCount = 0;
    while (memoryCount < view.entries.length && view.entries[memoryCount]!.source === null) memoryCount++;
    let memory = view.entries.slice(0, memoryCount).map((entry) => entry.message);
    const historyEntries = view.entries.slice(memoryCount);
    let window: HistoryWindow;
    try {
      window = this.fitHistory(historyEntries, available - fixedTokens - this.counter.countMessages(memory), log);
    } catch (error) {
      if (!(BudgetExceededError.isInstance(error) && memory.length > 0)) throw error;
      // Not even the current turn fits beside the summary: the summary stays in the transcript.
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(turn),
        message: 'The current turn does not fit beside the compaction summary; the summary was left out of this payload (it stays in the saved transcript).',
        code: error.code,
      });
      memory = [];
      window = this.fitHistory(historyEntries, available - fixedTokens, log);
    }
    const state = this.compaction;
    if (state && !startsWithPrefix(history, state.prefix) && state.keepFrom > 0) {
      log.add('compacted', { from: 0, to: state.keepFrom }, {
        reason: `replaced by the retain + summary of compaction ${state.count}`,
        recoverableFrom: 'transcript',
        refs: [state.transcriptRef],
      });
    }

    const payload = buildPayload({
      strategyId: this.strategyId,
      model: this.model,
      counter: this.counter,
      budget: this.baseBudget,
      sections: { system, tools: sendTools, dynamic, memory, history: window },
      historyLength: history.length,
      historyInputTokens: () => this.inputHistoryTokens(history),
      reductions: log.list(),
      extra: {
        toolOutputCache: {
          enabled: this.config.toolOutputCache.enabled,
          budgetTokens: this.toolOutputBudget,
          newlyCached: view.newlyCached,
          refsInPayload: window.messages.filter((message) => message.role === 'tool' && message.output_ref).length,
        },
        compaction: {
          contextLimit: this.contextLimit,
          threshold: Math.floor(this.contextLimit * this.config.compaction.thresholdRatio),
          count: state?.count ?? 0,
          transcriptRef: state?.transcriptRef ?? null,
          guardMinTokens: this.guardMinTokens,
          lastError: this.lastCompactionError ?? null,
        },
      },
    });
    const hasUser = history.some((message) => message.role === 'user');
    const problems = findPayloadProblems(payload.messages).filter((problem) => hasUser || problem.problem !== 'no-user-message');
    if (problems.length > 0) throw new ProviderPayloadError('openai', problems.map((problem) => `${problem.problem} at ${problem.index}: ${problem.detail}`));

    const { stats } = payload;
    const base = this.eventBase(turn);
    const toolReductions = stats.reductions.filter((record) => record.action === 'trimmed' || record.action === 'truncated' || record.action === 'micro-compacted');
    if (toolReductions.length > 0) safeEmit(this.context.events, 'tool-output-trim', { ...base, reductions: toolReductions });
    const drops = stats.reductions.filter((record) => record.action === 'dropped');
    if (drops.length > 0) safeEmit(this.context.events, 'history-trim', { ...base, reductions: drops, droppedMessages: stats.dropped });
    safeEmit(this.context.events, 'payload-composed', { ...base, stats });
    return payload;
  }

  /**
   * Fits the history part of the view into `room` tokens. First, cheapest and fully recoverable,
   * older tool outputs (before the current turn) become `[tool output trimmed; ref=…]`; then core's
   * {@link selectHistoryWindow} keeps the newest whole tool-call groups, never drops the current
   * turn whole (its outputs are truncated head + tail, then its older steps leave, then the newest
   * user message is truncated with a marker) and reports the rest. Counts come from the session's
   * {@link HistoryLedger}; positions whose message changed since the last call are measured again.
   * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when not even the truncated newest user message fits
   */
  private fitHistory(entries: ReadonlyArray<ViewEntry>, room: number, log: ReductionLog): HistoryWindow {
    const budget = Math.max(0, room);
    let messages = entries.map((entry) => entry.message);
    this.forgetChanged(messages);
    this.ledger.sync(messages);
    let fitted: ReadonlyArray<ViewEntry> = entries;
    if (this.ledger.totalTokens(messages) > budget) {
      let currentTurn = entries.length;
      for (let index = entries.length - 1; index >= 0; index--) {
        if (entries[index]!.message.role === 'user') {
          currentTurn = index;
          break;
        }
      }
      let nonTool = 0;
      for (let index = 0; index < messages.length; index++) if (messages[index]!.role !== 'tool') nonTool += this.ledger.tokensAt(messages, index);
      fitted = trimToolOutputs(entries, {
        budgetTokens: Math.max(0, budget - nonTool),
        tokensOf: (message) => this.counter.countMessage(message),
        log,
        reason: 'tool output trimmed to fit the context window',
        protectFrom: currentTurn,
        withContent: (message, content) => this.withContent(message, content),
      }).entries;
      const trimmed = fitted.map((entry) => entry.message);
      trimmed.forEach((message, index) => {
        if (message !== messages[index]) this.ledger.invalidate(index);
      });
      messages = trimmed;
    }
    const window = selectHistoryWindow({ history: messages, budgetTokens: budget, counter: this.counter, ledger: this.ledger, strategyId: this.strategyId });
    this.windowInput = messages;
    for (const record of window.reductions) {
      for (let index = record.from; index < record.to; index++) {
        const entry = fitted[index]!;
        if (entry.source === null) continue;
        const ref = entry.message.role === 'tool' ? entry.message.output_ref?.id : undefined;
        const single = record.messages === 1;
        log.add(record.action, { from: entry.source }, {
          reason: record.reason,
          recoverableFrom: record.action === 'truncated' && ref ? 'tool-output-cache' : record.recoverableFrom,
          ...(record.action === 'truncated' && ref ? { refs: [ref] } : {}),
          ...(single && record.tokensBefore !== undefined ? { tokensBefore: record.tokensBefore } : {}),
          ...(single && record.tokensAfter !== undefined ? { tokensAfter: record.tokensAfter } : {}),
        });
      }
    }
    // The reductions were logged above in caller indexes; the window keeps none of its own.
    return { ...window, reductions: [] };
  }

  /** Tells the ledger which positions of the history view hold another message than last time. */
  private forgetChanged(messages: ReadonlyArray<ChatMessage>): void {
    const previous = this.windowInput;
    if (!previous) return;
    const shared = Math.min(previous.length, messages.length);
    for (let index = 0; index < shared; index++) if (previous[index] !== messages[index]) this.ledger.invalidate(index);
  }

  /**
   * The working view of a caller's history: mapped onto the compaction (when any), tool outputs
   * cached and shown as views, unpaired calls/results repaired, micro-compacted, and trimmed to the
   * tool output budget.
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
        const { info, stored } = await this.ensureCached(original, turn);
        if (!info) continue;
        if (stored) newlyCached++;
        const message = this.withContent(original, info.viewText, info.ref);
        infos.set(message, info);
        entries[index] = { ...entry, message };
        if (info.viewTruncated && entry.source !== null) {
          log.add('truncated', { from: entry.source }, {
            reason: 'tool output shown as an in-context view',
            recoverableFrom: 'tool-output-cache',
            refs: [info.ref.id],
            tokensBefore: info.rawTokens,
          });
        }
      }
    }
    entries = repairToolPairs(entries, log, { keepTrailingCalls: true });
    entries = microCompact(
      entries,
      this.config.microCompact,
      (entry) => infos.get(entry.message)?.originalLength ?? contentText(entry.message.content as ToolMessage['content']).length,
      log,
      (message, content) => this.withContent(message, content),
    );
    if (this.config.toolOutputCache.enabled) {
      entries = trimToolOutputs(entries, {
        budgetTokens: this.toolOutputBudget,
        tokensOf: (message) => this.toolTokens(message),
        log,
        // The current turn's outputs reach the model as text; a current turn too big for the
        // payload is fitted by the window selection (head + tail cut), never by a placeholder.
        protectFrom: currentTurnStart(entries),
        withContent: (message, content) => this.withContent(message, content),
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

  /** Caches a tool output when it is first seen; repeated calls reuse what is known. */
  private async ensureCached(message: ToolMessage, turn: number): Promise<{ info: CachedInfo | undefined; stored: boolean }> {
    const known = this.cached.get(message);
    if (known && !this.collectedRefs.has(known.ref.id)) return { info: known, stored: false };
    const text = contentText(message.content);
    if (message.output_ref && isToolOutputRefId(message.output_ref.id) && !this.collectedRefs.has(message.output_ref.id) && (await this.cache.has(message.output_ref.id))) {
      // The caller passes back a message that already carries a ref (our copy, or its own cache).
      const info: CachedInfo = {
        ref: { ...message.output_ref },
        viewText: text,
        viewTruncated: false,
        originalLength: message.output_ref.byte_size ?? text.length,
        rawTokens: this.counter.countMessage(message),
      };
      this.cached.set(message, info);
      return { info, stored: false };
    }
    try {
      const result = await this.cache.cache(text);
      this.collectedRefs.delete(result.ref.id);
      const info: CachedInfo = {
        ref: result.ref,
        viewText: result.view.text,
        viewTruncated: result.view.truncated,
        originalLength: text.length,
        rawTokens: result.view.truncated ? Math.ceil((result.ref.byte_size ?? utf8ByteLength(text)) / 4) + 4 : this.counter.countMessage(message),
      };
      this.cached.set(message, info);
      if (result.stored) {
        safeEmit(this.context.events, 'tool-output-cached', {
          ...this.eventBase(turn),
          refId: result.ref.id,
          toolCallId: message.tool_call_id,
          byteSize: result.ref.byte_size ?? 0,
          lineCount: result.ref.line_count ?? 0,
        });
      }
      return { info, stored: result.stored };
    } catch (error) {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(turn),
        message: `A tool output could not be cached (${error instanceof Error ? error.message : String(error)}); it is sent as it is and may be dropped to fit.`,
        ...(CtxkitError.isInstance(error) ? { code: error.code } : {}),
      });
      return { info: undefined, stored: false };
    }
  }

  // ---- compaction -----------------------------------------------------------------------------

  /**
   * `checkAndCompact` (seed 000 §2.7): saves the transcript, has the model write retain + summary,
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
      const input = this.summaryInput(entries, config.model);
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
    await this.collectGarbage(compacted, reply, turn);
    safeEmit(this.context.events, 'compaction-end', { ...base, trigger, tokensBefore, tokensAfter, transcriptRef, messages: compacted });
    return { compacted: true, messages: compacted, reason: `${trigger} compaction: ${tokensBefore} → ${tokensAfter} tokens; transcript ${transcriptRef}` };
  }

  /** The summary call's messages: the view, oldest units left out (they are in the transcript) until it fits the summary model. */
  private summaryInput(entries: ReadonlyArray<ViewEntry>, summaryModel: string | null): ChatMessage[] {
    const limit = summaryModel ? this.context.models.get(summaryModel).contextWindow : this.contextLimit;
    const counter = summaryModel ? this.context.counterFor(summaryModel) : this.counter;
    const available = Math.floor(limit * 0.9) - this.config.compaction.maxSummaryTokens - counter.count(this.lastSystemPrompt) - 1024;
    const messages = entries.map((entry) => entry.message);
    let start = 0;
    while (start < entries.length && entries[start]!.source === null) start++;
    const prefix = messages.slice(0, start);
    let total = counter.countMessages(messages);
    let cut = start;
    while (total > available && cut < messages.length - 1) {
      const group = groupAt(messages, cut);
      for (let index = cut; index < group.end; index++) total -= counter.countMessage(messages[index]!);
      cut = group.end;
    }
    return [...prefix, ...messages.slice(cut)];
  }

  /** Seed 000 §1.9: deletes cached outputs that neither the compacted history nor the retain/summary text references. */
  private async collectGarbage(compacted: ReadonlyArray<ChatMessage>, reply: { retain: string; summary: string }, turn: number): Promise<void> {
    if (!this.config.toolOutputCache.enabled) return;
    const keep = new Set<string>();
    for (const text of [reply.retain, reply.summary]) for (const match of text.match(REF_IN_TEXT) ?? []) keep.add(match);
    for (const message of compacted) {
      if (message.role === 'tool') {
        const known = this.cached.get(message);
        if (known) keep.add(known.ref.id);
        if (message.output_ref) keep.add(message.output_ref.id);
      }
      for (const match of contentText(message.content as ToolMessage['content']).match(REF_IN_TEXT) ?? []) keep.add(match);
    }
    try {
      const collected = await this.cache.collect(keep);
      for (const id of collected) this.collectedRefs.add(id);
      if (collected.length > 0) safeEmit(this.context.events, 'tool-output-gc', { ...this.eventBase(turn), refIds: collected });
    } catch (error) {
      safeEmit(this.context.events, 'strategy-warning', { ...this.eventBase(turn), message: `Tool output GC failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  // ---- small parts ----------------------------------------------------------------------------

  /** A copy of a tool message with other content (and a ref), reused across turns so counts stay cached. */
  private withContent(message: ToolMessage, content: string, ref?: ToolOutputRef): ToolMessage {
    const outputRef = ref ?? message.output_ref;
    if (contentText(message.content) === content && (outputRef === message.output_ref || message.output_ref?.id === outputRef?.id) && typeof message.content === 'string') {
      if (message.output_ref || !outputRef) return message;
    }
    let byContent = this.copies.get(message);
    if (!byContent) {
      byContent = new Map();
      this.copies.set(message, byContent);
    }
    const key = `${outputRef?.id ?? ''}\u0000${content}`;
    let copy = byContent.get(key);
    if (!copy) {
      copy = { ...message, content, ...(outputRef ? { output_ref: { ...outputRef } } : {}) };
      byContent.set(key, copy);
    }
    return copy;
  }

  /** Tokens of a tool message for the tool output budget: the real tokenizer, or bytes/4 without one (seed 000 §1.3). */
  private toolTokens(message: ToolMessage): number {
    if (this.counter.meta().strategy === 'heuristic') return Math.ceil(utf8ByteLength(contentText(message.content)) / 4) + 4;
    return this.counter.countMessage(message);
  }

  private sumTokens(entries: ReadonlyArray<ViewEntry>): number {
    let total = 0;
    for (const entry of entries) total += this.counter.countMessage(entry.message);
    return total;
  }

  private inputHistoryTokens(history: ReadonlyArray<ChatMessage>): number {
    let total = 0;
    for (const message of history) {
      const info = message.role === 'tool' ? this.cached.get(message) : undefined;
      total += info ? info.rawTokens : this.counter.countMessage(message);
    }
    return total;
  }

  private mergeTools(tools: ReadonlyArray<ToolDefinition>): ToolDefinition[] {
    const names = new Set(tools.map((tool) => tool.function.name));
    const result = [...tools];
    for (const tool of this.contributedTools()) {
      if (!names.has(tool.definition.function.name)) result.push(tool.definition);
    }
    return result;
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

/** Turn number for events: the count of user messages. */
function countTurns(history: ReadonlyArray<ChatMessage>): number {
  let turns = 0;
  for (const message of history) if (message.role === 'user') turns++;
  return turns;
}
