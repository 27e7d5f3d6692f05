import {
  assertHistoryShape,
  computeBudget,
  CtxkitError,
  DisposedError,
  LLMNotConfiguredError,
  LLMResponseError,
  LLMTimeoutError,
  memoryAllowance,
  PayloadComposer,
  safeEmit,
  truncateToFit,
  type ChatMessage,
  type ComposeOptions,
  type ContextManager,
  type CtxkitEventBase,
  type LLMPayload,
  type MemoryBlock,
  type PayloadBudget,
  type StoreKey,
  type StrategyContext,
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
}

/** The summary as a clearly delimited block right after the system prompt. */
function summaryBlock(state: SummaryState, text: string = state.text): string {
  return (
    `<conversation_summary covers_messages="0-${state.coveredMessages - 1}" turns="${state.coveredTurns}" version="${state.version}">\n` +
    `Summary of the earlier conversation (the newest part of it may also follow verbatim):\n` +
    `${escapeReservedTags(text)}\n</conversation_summary>`
  );
}

/** Tokens of the summary block's wrapper (the tag line and the heading around the summary text). */
const SUMMARY_WRAPPER_TOKENS = 48;
/** The smallest cap a summary is given (a smaller one carries nothing useful). */
const MIN_SUMMARY_TOKENS = 64;

/**
 * Tokens a summarizer is asked to stay within: the previous summary plus half of the new turns (at
 * least 128), so that the summary grows towards its share of the budget fold by fold; never more than
 * the cap (where the summarizer re-folds instead of growing), and always less than what it replaces
 * (the inflation check would reject it).
 */
export function summaryTargetTokens(cap: number, previousSummaryTokens: number, batchTokens: number): number {
  const replaced = previousSummaryTokens + batchTokens;
  return Math.max(1, Math.min(cap, replaced - 1, Math.max(128, previousSummaryTokens + Math.floor(batchTokens / 2))));
}

function errorInfo(error: unknown): { code: string; message: string } {
  if (CtxkitError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'CTXKIT_STRATEGY_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/**
 * `std-summarization-strategy` (the recommended strategy): a summary buffer
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
  /** Composes every payload; its ledger counts only new messages per turn. */
  private readonly composer: PayloadComposer;
  /** The room and the summary's share of it at the last composition (what a fold may grow the summary to). */
  private lastRoom: { room: number; allowance: number } | undefined;
  private readonly composerBudget: PayloadBudget;
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
    const info = context.models.find(this.model);
    // Strict registry: an unknown model is an error unless the ceiling is given explicitly.
    const contextWindow = info?.contextWindow ?? (config.maxContextTokens ?? context.models.get(this.model).contextWindow);
    const budget = computeBudget({
      contextWindow,
      maxContextTokens: config.maxContextTokens,
      reserveOutputTokens: config.reserveOutputTokens,
      safetyMarginRatio: config.safetyMarginRatio,
    });
    this.composerBudget = budget;
    this.composer = new PayloadComposer({
      owner: { agentId: context.agentId, sessionId: context.sessionId, strategyId: context.strategyId, events: context.events },
      model: this.model,
      counter: this.counter,
      budget: () => budget,
    });
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

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options: ComposeOptions = {}): Promise<LLMPayload> {
    this.assertLive();
    let composition = await this.serial(() => this.compose(systemPrompt, history, tools, ragContext, options));
    if (composition.wouldWait && this.pending && this.config.summaryWaitMs > 0) {
      // The budget leaves no other way: wait (bounded) for the running fold, then compose again.
      await this.waitBounded(this.pending, this.config.summaryWaitMs);
      composition = await this.serial(() => this.compose(systemPrompt, history, tools, ragContext, options));
    }
    this.composer.emitComposed(composition.payload, composition.turn);
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

  private async compose(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext: string | undefined, options: ComposeOptions): Promise<Composition> {
    assertHistoryShape(history);
    await this.ensureLoaded();
    this.resyncIfStale(history);
    const turn = turnStarts(history).length;
    const state = this.state ?? null;
    const covered = state ? state.coveredMessages : 0;
    const memory: MemoryBlock[] = state
      ? [
          {
            name: 'summary',
            content: summaryBlock(state),
            shrink: (maxTokens) => {
              const room = maxTokens - this.counter.count(summaryBlock(state, ''));
              return room > 0 ? summaryBlock(state, truncateToFit(state.text, { kind: 'head', maxTokens: room, counter: this.counter }).text) : undefined;
            },
            placement: 'after-system',
            omitWhenWindowCovers: true,
            covers: { until: covered, action: 'summarized', recoverableFrom: 'summary', reason: `folded into summary v${state.version}`, refs: [`summary:${state.version}`] },
          },
        ]
      : [];
    const composed = this.composer.compose({
      systemPrompt,
      history,
      tools,
      ragContext,
      ...options,
      memory,
      memoryShare: this.config.memoryShare,
      turn,
      emitEvents: false,
      extra: {},
    });
    this.lastRoom = { room: composed.roomTokens, allowance: composed.memoryAllowanceTokens };
    const outcome = composed.memory[0];
    const window = composed.window;
    const extra = composed.payload.stats.extra!;
    Object.assign(extra, {
      summarizer: this.summarizer.name,
      summarizerModel: this.summarizer.model,
      summarizerOffline: this.summarizer.offline,
      summaryVersion: state?.version ?? 0,
      summaryTokens: state?.summaryTokens ?? 0,
      summaryIncluded: outcome === 'sent' || outcome === 'shortened',
      summaryOutcome: outcome ?? 'none',
      coveredMessages: covered,
      coveredTurns: state?.coveredTurns ?? 0,
      unsummarizedTurns: turnStarts(history, covered).length,
      summaryRunning: this.pending !== undefined,
      consecutiveFailures: this.consecutiveFailures,
      summaryAttemptsStopped: this.stoppedAt !== undefined,
    });
    // Unsummarized history older than the window left out: a running fold would bring it back.
    const wouldWait = window.fromIndex > covered && this.pending !== undefined;
    return { payload: composed.payload, wouldWait, turn };
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
    // Fold past the turn threshold, or as soon as the unsummarized history no longer fits the room
    // the summary leaves it (so that what leaves the window is in the summary).
    if (starts.length <= this.config.threshold && !(starts.length > 1 && this.outgrowsRoom(history, covered))) return;
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
      const cap = this.summaryCap();
      const maxTokens = summaryTargetTokens(cap, job.state?.summaryTokens ?? 0, batchTokens);
      const text = (
        await this.withTimeout(
          summarizer.summarize({ previousSummary: job.state?.text ?? null, messages: job.batch, firstIndex: job.covered, maxTokens, counter: this.counter, signal: abort.signal }),
          abort,
        )
      ).trim();
      const details = { client: summarizer.name, model: summarizer.model };
      if (text === '') throw new LLMResponseError('the summary is empty', details);
      const summaryTokens = this.counter.count(text);
      if (summaryTokens > cap) {
        throw new LLMResponseError(`the summary has ${summaryTokens} tokens, over the cap of ${cap} (summaryMaxTokens, or the summary's share of the budget)`, details);
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

  /** True when the history from `covered` on takes more than the room beside the summary's share. */
  private outgrowsRoom(history: ReadonlyArray<ChatMessage>, covered: number): boolean {
    if (this.lastRoom === undefined) return false;
    const limit = this.lastRoom.room - this.lastRoom.allowance;
    const ledger = this.composer.ledger;
    ledger.sync(history);
    let tokens = 0;
    for (let index = history.length - 1; index >= covered && tokens <= limit; index--) tokens += ledger.tokensWithin(history, index, limit - tokens + 1);
    return tokens > limit;
  }

  /**
   * The most tokens a summary may have: `summaryMaxTokens` when configured, else the summary's share
   * of the room at the last composition (less its wrapper), so that it fits beside the newest history.
   */
  private summaryCap(): number {
    if (this.config.summaryMaxTokens !== null) return this.config.summaryMaxTokens;
    const allowance = this.lastRoom?.allowance ?? memoryAllowance(this.composerBudget.available, this.config.memoryShare);
    return Math.max(MIN_SUMMARY_TOKENS, allowance - SUMMARY_WRAPPER_TOKENS);
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
