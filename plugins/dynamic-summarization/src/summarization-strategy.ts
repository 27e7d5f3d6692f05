import {
  assertHistoryShape,
  BudgetExceededError,
  buildPayload,
  computeBudget,
  CtxkitError,
  DisposedError,
  HistoryLedger,
  LLMNotConfiguredError,
  LLMResponseError,
  LLMTimeoutError,
  safeEmit,
  selectHistoryWindow,
  type ChatMessage,
  type ContextManager,
  type CtxkitEventBase,
  type LLMPayload,
  type ReductionRecord,
  type StoreKey,
  type StrategyContext,
  type SystemMessage,
  type TokenCounter,
  type ToolDefinition,
} from '@ctxkit/core';
import { escapeReservedTags } from './llm/fence-transcript';
import { LLMSummarizer } from './llm/llm-summarizer';
import { historyFingerprint } from './history/history-fingerprint';
import { turnStarts } from './history/turn-starts';
import { OfflineSummarizer } from './offline/offline-summarizer';
import type { SummarizationConfig } from './summarization-config';
import { isSummaryState, summaryStateKey, type SummaryState } from './summary-state';
import type { Summarizer } from './summarizer';

/** The plugin id. */
export const SUMMARIZATION_STRATEGY_ID = 'std-summarization-strategy';

/** Options of {@link SummarizationStrategy} besides config and context (tests, custom summarizers). */
export interface SummarizationStrategyOptions {
  /** Replaces the summarizer chosen from `config.summarizer` and `context.llm`. */
  summarizer?: Summarizer;
}

/** What one composition produced, before events are emitted. */
interface Composition {
  payload: LLMPayload;
  /** Unsummarized history had to be dropped while a summary was running. */
  wouldWait: boolean;
  turn: number;
  dropped: ReductionRecord[];
}

/** The summary as a clearly delimited block right after the system prompt. */
function summaryMessage(state: SummaryState): SystemMessage {
  return {
    role: 'system',
    content:
      `<conversation_summary covers_messages="0-${state.coveredMessages - 1}" turns="${state.coveredTurns}" version="${state.version}">\n` +
      `Summary of the earlier conversation, which is no longer shown verbatim:\n` +
      `${escapeReservedTags(state.text)}\n</conversation_summary>`,
  };
}

/**
 * Tokens a summarizer is asked to stay within: half of what the fold replaces (at least 128), never
 * more than the cap, and always less than what it replaces (the inflation check would reject it).
 */
export function summaryTargetTokens(cap: number, replacedTokens: number): number {
  return Math.max(1, Math.min(cap, replacedTokens - 1, Math.max(128, Math.floor(replacedTokens / 2))));
}

function errorInfo(error: unknown): { code: string; message: string } {
  if (CtxkitError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'CTXKIT_STRATEGY_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/**
 * `std-summarization-strategy` (seed 002 strategy B, the recommended strategy): a summary buffer
 * per agent and session, kept in the store. When unsummarized history passes `threshold` turns, a
 * background task folds the oldest `batchTurns` whole turns and the current summary into a new
 * summary; those turns then leave the payload. The payload is the system prompt, the summary block,
 * the dynamic context, then the unsummarized history under the sliding window's rules.
 *
 * Failure semantics: an attempt that errors, times out, answers empty or without `<summary>`, or
 * returns a summary over the cap or larger than what it replaces, changes nothing (the turns stay
 * verbatim), emits `summary-error` and backs off; at most one attempt per turn, and after
 * `maxConsecutiveFailures` no more attempts until the turns to fold change.
 *
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) from composePayload when system prompt,
 *   tools and dynamic context alone exceed the budget
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) from composePayload for a message with an unknown role
 * @throws DisposedError (`CTXKIT_DISPOSED`) after dispose()
 * @see docs/strategies/dynamic-summarization.md
 */
export class SummarizationStrategy implements ContextManager {
  readonly summarizer: Summarizer;
  private readonly model: string;
  private readonly counter: TokenCounter;
  /** Per-position counts of the caller's history (grows with new messages only). */
  private readonly ledger: HistoryLedger;
  private readonly contextWindow: number;
  private readonly key: StoreKey;
  /** Serialises compositions, turn completions and commits of one session. */
  private queue: Promise<unknown> = Promise.resolve();
  /** `undefined` until loaded from the store; `null` when there is no summary. */
  private state: SummaryState | null | undefined;
  private pending: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** Bumped by re-sync and dispose, so that a running fold cannot commit stale work. */
  private generation = 0;
  private consecutiveFailures = 0;
  private retryAt = 0;
  /** Fingerprint of the turns to fold when attempts stopped; attempts resume when it changes. */
  private stoppedAt: string | undefined;
  private lastAttemptTurn = -1;
  private disposed = false;

  constructor(
    private readonly config: SummarizationConfig,
    private readonly context: StrategyContext,
    options: SummarizationStrategyOptions = {},
  ) {
    this.model = config.model ?? context.model;
    this.counter = config.model ? context.counterFor(config.model) : context.counter;
    this.ledger = new HistoryLedger(this.counter);
    const info = context.models.find(this.model);
    // Strict registry: an unknown model is an error unless the ceiling is given explicitly.
    this.contextWindow = info?.contextWindow ?? (config.maxContextTokens ?? context.models.get(this.model).contextWindow);
    this.key = summaryStateKey(context.agentId, context.sessionId);
    this.summarizer = options.summarizer ?? this.chooseSummarizer();
  }

  private chooseSummarizer(): Summarizer {
    const { config, context } = this;
    if (config.summarizer === 'offline' || (config.summarizer === 'auto' && context.llm === undefined)) return new OfflineSummarizer();
    if (context.llm === undefined) throw new LLMNotConfiguredError(`${SUMMARIZATION_STRATEGY_ID} (summarizer: "llm")`);
    return new LLMSummarizer(context.llm, {
      model: config.compressionModel ?? context.model,
      summaryPrompt: config.summaryPrompt,
      maxInputTokens: config.summaryInputMaxTokens,
      timeoutMs: config.summaryTimeoutMs,
    });
  }

  // ---------------------------------------------------------------- public surface

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string): Promise<LLMPayload> {
    this.assertLive();
    let composition = await this.serial(() => this.compose(systemPrompt, history, tools, ragContext));
    if (composition.wouldWait && this.pending && this.config.summaryWaitMs > 0) {
      // The budget leaves no other way: wait (bounded) for the running fold, then compose again.
      await this.waitBounded(this.pending, this.config.summaryWaitMs);
      composition = await this.serial(() => this.compose(systemPrompt, history, tools, ragContext));
    }
    const base = this.eventBase(composition.turn);
    if (composition.dropped.length > 0) {
      safeEmit(this.context.events, 'history-trim', {
        ...base,
        reductions: composition.dropped,
        droppedMessages: composition.dropped.reduce((sum, record) => sum + (record.action === 'dropped' ? record.messages : 0), 0),
      });
      const toolTrims = composition.dropped.filter((record) => record.action === 'truncated' && record.reason.includes('tool output'));
      if (toolTrims.length > 0) safeEmit(this.context.events, 'tool-output-trim', { ...base, reductions: toolTrims });
    }
    safeEmit(this.context.events, 'payload-composed', { ...base, stats: composition.payload.stats });
    return composition.payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.assertLive();
    await this.serial(async () => {
      if (!(await this.ensureLoaded())) return;
      this.resyncIfStale(newHistory);
      this.maybeStartFold(newHistory);
    });
  }

  /** Resolves when no background fold is running (for tests and graceful shutdown). */
  async whenIdle(): Promise<void> {
    while (this.pending) await this.pending;
    await this.serial(async () => undefined);
  }

  /** Stops background work; a running fold is aborted and commits nothing. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.generation++;
    this.abort?.abort(new DisposedError(`${SUMMARIZATION_STRATEGY_ID} for agent "${this.context.agentId}"`));
    if (this.pending) await this.pending;
  }

  /** The session's current summary buffer (a copy), or `null` when there is none. */
  async getSummaryState(): Promise<SummaryState | null> {
    await this.serial(() => this.ensureLoaded());
    return this.state ? structuredClone(this.state) : null;
  }

  // ---------------------------------------------------------------- composition

  private async compose(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext: string | undefined): Promise<Composition> {
    assertHistoryShape(history);
    await this.ensureLoaded();
    this.resyncIfStale(history);
    const counter = this.counter;
    const turn = turnStarts(history).length;
    const budget = computeBudget({
      contextWindow: this.contextWindow,
      maxContextTokens: this.config.maxContextTokens,
      reserveOutputTokens: this.config.reserveOutputTokens,
      safetyMarginRatio: this.config.safetyMarginRatio,
    });

    const system: SystemMessage = { role: 'system', content: systemPrompt };
    const dynamic: SystemMessage | undefined = ragContext ? { role: 'system', content: ragContext } : undefined;
    const systemTokens = counter.countMessage(system);
    const toolTokens = counter.countTools(tools);
    const dynamicTokens = dynamic ? counter.countMessage(dynamic) : 0;
    const fixed = systemTokens + toolTokens + dynamicTokens;
    if (fixed > budget.available) {
      throw new BudgetExceededError(
        SUMMARIZATION_STRATEGY_ID,
        { available: budget.available, required: fixed, sections: { system: systemTokens, tools: toolTokens, dynamic: dynamicTokens } },
        dynamic ? 'system prompt + tool definitions + dynamic context' : undefined,
      );
    }

    const state = this.state ?? null;
    const covered = state ? state.coveredMessages : 0;
    const memory = state ? summaryMessage(state) : undefined;
    let memoryTokens = memory ? counter.countMessage(memory) : 0;
    const reductions: ReductionRecord[] = [];
    let includeMemory = memory !== undefined;
    if (includeMemory && fixed + memoryTokens >= budget.available) {
      // Not even the summary fits beside the fixed sections: leave it out this time (reported).
      includeMemory = false;
      memoryTokens = 0;
    }
    if (state && covered > 0) {
      reductions.push({
        action: 'summarized',
        from: 0,
        to: covered,
        messages: covered,
        tokensBefore: state.coveredTokens,
        tokensAfter: includeMemory ? counter.countMessage(memory!) : 0,
        reason: includeMemory ? `folded into summary v${state.version}` : `folded into summary v${state.version} (summary left out: no room)`,
        recoverableFrom: includeMemory ? 'summary' : 'history',
        refs: [`summary:${state.version}`],
      });
    }

    // The unsummarized part under the sliding window's rules (core's selection, counts from the
    // session's ledger so that a turn measures only its new messages).
    const window = selectHistoryWindow({
      history,
      startIndex: covered,
      budgetTokens: budget.available - fixed - memoryTokens,
      counter,
      ledger: this.ledger,
      strategyId: SUMMARIZATION_STRATEGY_ID,
    });
    const ledger = this.ledger;
    const payload = buildPayload({
      strategyId: this.context.strategyId,
      model: this.model,
      counter,
      budget,
      sections: { system: [system], tools, dynamic: dynamic ? [dynamic] : [], memory: includeMemory ? [memory!] : [], history: window },
      memoryFirst: true,
      historyLength: history.length,
      historyInputTokens: () => ledger.totalTokens(history),
      reductions,
      extra: {
        summarizer: this.summarizer.name,
        summarizerModel: this.summarizer.model,
        summarizerOffline: this.summarizer.offline,
        summaryVersion: state?.version ?? 0,
        summaryTokens: state?.summaryTokens ?? 0,
        summaryIncluded: includeMemory,
        coveredMessages: covered,
        coveredTurns: state?.coveredTurns ?? 0,
        unsummarizedTurns: turnStarts(history, covered).length,
        summaryRunning: this.pending !== undefined,
        consecutiveFailures: this.consecutiveFailures,
        summaryAttemptsStopped: this.stoppedAt !== undefined,
      },
    });
    const dropped = window.reductions;
    // Unsummarized history older than the window left out: a running fold would bring it back.
    const leftOut = window.fromIndex > covered && window.reductions.some((record) => record.action === 'dropped' && record.from === covered && record.to === window.fromIndex);
    return { payload, wouldWait: leftOut && this.pending !== undefined, turn, dropped };
  }

  // ---------------------------------------------------------------- state

  /** Loads the buffer once; a store that fails leaves the strategy without summary (retried later). */
  private async ensureLoaded(): Promise<boolean> {
    if (this.state !== undefined) return true;
    try {
      const value = await this.context.store.get(this.key);
      this.state = isSummaryState(value) ? value : null;
      return true;
    } catch (error) {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(0),
        message: `could not read the summary buffer; composing without it this time: ${errorInfo(error).message}`,
        code: errorInfo(error).code,
      });
      return false;
    }
  }

  /** Drops a summary that no longer matches the start of the caller's history. */
  private resyncIfStale(history: ReadonlyArray<ChatMessage>): void {
    const state = this.state;
    if (!state) return;
    let reason: string | undefined;
    if (state.coveredMessages > history.length) {
      reason = `the history has ${history.length} messages but the summary covers ${state.coveredMessages}`;
    } else if (historyFingerprint(history, 0, state.coveredMessages) !== state.fingerprint) {
      reason = `the first ${state.coveredMessages} messages of the history differ from those the summary covers (edited or replaced history)`;
    }
    if (reason === undefined) return;
    this.state = null;
    this.generation++;
    this.abort?.abort(new Error('re-sync'));
    this.consecutiveFailures = 0;
    this.retryAt = 0;
    this.stoppedAt = undefined;
    this.context.store.delete(this.key).catch((error: unknown) => {
      safeEmit(this.context.events, 'strategy-warning', { ...this.eventBase(turnStarts(history).length), message: `could not delete the stale summary: ${errorInfo(error).message}`, code: errorInfo(error).code });
    });
    safeEmit(this.context.events, 'summary-resync', { ...this.eventBase(turnStarts(history).length), reason });
  }

  // ---------------------------------------------------------------- background fold

  private maybeStartFold(history: ReadonlyArray<ChatMessage>): void {
    if (this.pending || this.disposed) return;
    const state = this.state ?? null;
    const covered = state?.coveredMessages ?? 0;
    const starts = turnStarts(history, covered);
    if (starts.length <= this.config.threshold) return;
    const turn = turnStarts(history).length;
    if (this.lastAttemptTurn === turn) return; // never more than one attempt per turn
    // Fold whole turns, and always keep at least the newest turn verbatim.
    const foldTurns = Math.min(this.config.batchTurns, starts.length - 1);
    const end = starts[foldTurns]!;
    const batchKey = `${state?.version ?? 0}/${historyFingerprint(history, covered, end)}`;
    if (this.stoppedAt !== undefined) {
      if (this.stoppedAt === batchKey) return;
      this.stoppedAt = undefined; // the turns to fold changed: try again
      this.consecutiveFailures = 0;
      this.retryAt = 0;
    }
    if (this.context.now() < this.retryAt) return;
    this.lastAttemptTurn = turn;
    const batch = structuredClone(history.slice(covered, end)) as ChatMessage[];
    const coveredEnd = end;
    const foldedTurns = (state?.coveredTurns ?? 0) + turnStarts(history, covered, end).length;
    const fingerprint = historyFingerprint(history, 0, end);
    this.pending = this.runFold({ state, batch, covered, coveredEnd, foldedTurns, fingerprint, batchKey, turn, generation: this.generation }).finally(() => {
      this.pending = undefined;
      this.abort = undefined;
    });
  }

  private async runFold(job: {
    state: SummaryState | null;
    batch: ChatMessage[];
    covered: number;
    coveredEnd: number;
    foldedTurns: number;
    fingerprint: string;
    batchKey: string;
    turn: number;
    generation: number;
  }): Promise<void> {
    const base = this.eventBase(job.turn);
    const summarizer = this.summarizer;
    const batchTurns = turnStarts(job.batch).length;
    safeEmit(this.context.events, 'summary-start', { ...base, turns: batchTurns, messages: job.batch.length, model: summarizer.model, offline: summarizer.offline });
    const abort = new AbortController();
    this.abort = abort;
    try {
      const batchTokens = this.counter.countMessages(job.batch);
      const replacedTokens = batchTokens + (job.state?.summaryTokens ?? 0);
      const maxTokens = summaryTargetTokens(this.config.summaryMaxTokens, replacedTokens);
      const text = (
        await this.withTimeout(
          summarizer.summarize({ previousSummary: job.state?.text ?? null, messages: job.batch, firstIndex: job.covered, maxTokens, counter: this.counter, signal: abort.signal }),
          abort,
        )
      ).trim();
      const details = { client: summarizer.name, model: summarizer.model };
      if (text === '') throw new LLMResponseError('the summary is empty', details);
      const summaryTokens = this.counter.count(text);
      if (summaryTokens > this.config.summaryMaxTokens) {
        throw new LLMResponseError(`the summary has ${summaryTokens} tokens, over the cap of ${this.config.summaryMaxTokens} (summaryMaxTokens)`, details);
      }
      if (summaryTokens >= replacedTokens) {
        throw new LLMResponseError(`the summary (${summaryTokens} tokens) is not smaller than what it replaces (${replacedTokens} tokens)`, details);
      }
      const committed = await this.serial(async () => {
        // Re-sync, dispose or another writer since the start: this work is stale, commit nothing.
        if (job.generation !== this.generation || (this.state?.version ?? 0) !== (job.state?.version ?? 0)) return undefined;
        const next: SummaryState = {
          format: 1,
          version: (job.state?.version ?? 0) + 1,
          text,
          coveredMessages: job.coveredEnd,
          coveredTurns: job.foldedTurns,
          fingerprint: job.fingerprint,
          summaryTokens,
          coveredTokens: (job.state?.coveredTokens ?? 0) + batchTokens,
          summarizer: { name: summarizer.name, model: summarizer.model, offline: summarizer.offline },
          updatedAt: this.context.now(),
        };
        await this.context.store.set(this.key, next);
        this.state = next;
        this.consecutiveFailures = 0;
        this.retryAt = 0;
        return next;
      });
      if (committed) {
        safeEmit(this.context.events, 'summary-end', {
          ...base,
          turns: batchTurns,
          messages: job.batch.length,
          model: summarizer.model,
          offline: summarizer.offline,
          summaryTokens,
          replacedTokens,
          version: committed.version,
        });
      }
    } catch (error) {
      if (job.generation !== this.generation) return; // aborted by re-sync or dispose: not a failure
      this.consecutiveFailures++;
      const stopped = this.consecutiveFailures >= this.config.maxConsecutiveFailures;
      this.retryAt = this.context.now() + this.config.retryBackoffMs * 2 ** (this.consecutiveFailures - 1);
      if (stopped) this.stoppedAt = job.batchKey;
      safeEmit(this.context.events, 'summary-error', {
        ...base,
        error: errorInfo(error),
        consecutiveFailures: this.consecutiveFailures,
        retryAt: stopped ? null : this.retryAt,
      });
    }
  }

  // ---------------------------------------------------------------- plumbing

  private withTimeout<T>(work: Promise<T>, abort: AbortController): Promise<T> {
    const timeoutMs = this.config.summaryTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new LLMTimeoutError({ client: this.summarizer.name, model: this.summarizer.model, timeoutMs });
        abort.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const aborted = new Promise<never>((_resolve, reject) => {
      abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
    });
    return Promise.race([work, timeout, aborted]).finally(() => clearTimeout(timer));
  }

  private async waitBounded(work: Promise<void>, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private eventBase(turn: number): CtxkitEventBase {
    return { agentId: this.context.agentId, sessionId: this.context.sessionId, strategyId: this.context.strategyId, turn };
  }

  private assertLive(): void {
    if (this.disposed) throw new DisposedError(`${SUMMARIZATION_STRATEGY_ID} for agent "${this.context.agentId}"`);
  }
}
