import {
  type SerialQueue,
  CtxkitError,
  DisposedError,
  LLMResponseError,
  LLMTimeoutError,
  safeEmit,
  type ChatMessage,
  type CtxkitEventBase,
  type HistoryLedger,
  type StoreKey,
  type StrategyContext,
  type TokenCounter,
} from '@ctxkit/core';
import { historyFingerprint } from '../history/history-fingerprint';
import { turnStarts } from '../history/turn-starts';
import { SUMMARIZATION_STRATEGY_ID } from '../strategy-id';
import type { SummarizationConfig } from '../summarization-config';
import { isSummaryState, summaryStateKey, type SummaryState } from '../summary-state';
import type { Summarizer } from '../summarizer';
import { foldBatchEnd, foldBatchKey, foldIsDue } from './fold-batch';
import { FoldBackoff } from './fold-backoff';
import { summaryCap, summaryTargetTokens, type ComposedRoom } from './summary-cap';
import { withTimeout } from './with-timeout';

/** What {@link FoldScheduler} needs from the strategy. */
export interface FoldSchedulerOptions {
  config: Pick<SummarizationConfig, 'threshold' | 'batchTurns' | 'summaryMaxTokens' | 'memoryShare' | 'maxConsecutiveFailures' | 'retryBackoffMs' | 'summaryTimeoutMs'>;
  /** The session's context: ids, store, events, clock. */
  context: StrategyContext;
  /** The agent's counter (summaries are sent with its payload). */
  counter: TokenCounter;
  summarizer: Summarizer;
  /** The composer's ledger of the conversation (measures whether the unsummarized history outgrows its room). */
  ledger: HistoryLedger;
  /** Tokens of the budget for the payload, for the summary's cap before any composition. */
  available: number;
  /** The session's queue: a fold's commit runs in it, between compositions and turn completions. */
  queue: SerialQueue;
}

/** One background fold: the batch, what it starts from, and what the buffer becomes on success. */
interface FoldJob {
  state: SummaryState | null;
  /** The caller's messages of the batch (counted, never kept or changed). */
  source: ReadonlyArray<ChatMessage>;
  /** A copy of the batch for the summarizer. */
  batch: ChatMessage[];
  covered: number;
  coveredEnd: number;
  foldedTurns: number;
  fingerprint: string;
  batchKey: string;
  turn: number;
  generation: number;
}

function errorInfo(error: unknown): { code: string; message: string } {
  if (CtxkitError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'CTXKIT_STRATEGY_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The summary buffer of one session and the background folds that grow it. It loads the buffer from
 * the store once, drops it when the caller's history no longer starts with the messages it covers
 * (re-sync), decides when a fold is due and which whole turns it takes, runs the summarizer outside
 * the session's queue (with a timeout), checks the summary and commits it through the queue only if
 * nothing changed meanwhile, and keeps the failure accounting that prevents loops.
 * Emits `summary-start`, `summary-end`, `summary-error`, `summary-resync` and `strategy-warning`.
 * @see docs/strategies/dynamic-summarization.md
 */
export class FoldScheduler {
  private readonly key: StoreKey;
  private readonly backoff: FoldBackoff;
  /** `undefined` until loaded from the store; `null` when there is no summary. */
  private buffer: SummaryState | null | undefined;
  private pending: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** Bumped by re-sync and dispose, so that a running fold cannot commit stale work. */
  private generation = 0;
  private disposed = false;
  /** The room and the summary's share of it at the last composition (what a fold may grow the summary to). */
  private room: ComposedRoom | undefined;

  constructor(private readonly options: FoldSchedulerOptions) {
    this.key = summaryStateKey(options.context.agentId, options.context.sessionId);
    this.backoff = new FoldBackoff(options.config);
  }

  /** The session's summary buffer (`null` when there is none or it is not loaded yet). */
  get state(): SummaryState | null {
    return this.buffer ?? null;
  }

  /** True while a background fold runs. */
  get running(): boolean {
    return this.pending !== undefined;
  }

  /** Failed folds in a row. */
  get consecutiveFailures(): number {
    return this.backoff.consecutiveFailures;
  }

  /** True when attempts stopped after too many failures (until the turns to fold change). */
  get stopped(): boolean {
    return this.backoff.stopped;
  }

  /** Records the room of the last composition: the summary's cap and the "outgrows its room" trigger follow it. */
  noteRoom(room: ComposedRoom): void {
    this.room = room;
  }

  /** Loads the buffer once; a store that fails leaves the session without summary (retried later). */
  async load(): Promise<boolean> {
    if (this.buffer !== undefined) return true;
    try {
      const value = await this.options.context.store.get(this.key);
      this.buffer = isSummaryState(value) ? value : null;
      return true;
    } catch (error) {
      safeEmit(this.options.context.events, 'strategy-warning', {
        ...this.eventBase(0),
        message: `could not read the summary buffer; composing without it this time: ${errorInfo(error).message}`,
        code: errorInfo(error).code,
      });
      return false;
    }
  }

  /** Drops a summary that no longer matches the start of the caller's history. */
  resyncIfStale(history: ReadonlyArray<ChatMessage>): void {
    const state = this.buffer;
    if (!state) return;
    let reason: string | undefined;
    if (state.coveredMessages > history.length) {
      reason = `the history has ${history.length} messages but the summary covers ${state.coveredMessages}`;
    } else if (historyFingerprint(history, 0, state.coveredMessages) !== state.fingerprint) {
      reason = `the first ${state.coveredMessages} messages of the history differ from those the summary covers (edited or replaced history)`;
    }
    if (reason === undefined) return;
    const { context } = this.options;
    this.buffer = null;
    this.generation++;
    this.abort?.abort(new Error('re-sync'));
    this.backoff.reset();
    context.store.delete(this.key).catch((error: unknown) => {
      safeEmit(context.events, 'strategy-warning', { ...this.eventBase(turnStarts(history).length), message: `could not delete the stale summary: ${errorInfo(error).message}`, code: errorInfo(error).code });
    });
    safeEmit(context.events, 'summary-resync', { ...this.eventBase(turnStarts(history).length), reason });
  }

  /**
   * Starts a background fold of the oldest whole turns when one is due, none is running, none was
   * attempted in this turn, the back-off has passed and attempts have not stopped for this batch.
   * Returns without waiting for it.
   */
  maybeStartFold(history: ReadonlyArray<ChatMessage>): void {
    if (this.pending || this.disposed) return;
    const state = this.state;
    const covered = state?.coveredMessages ?? 0;
    const starts = turnStarts(history, covered);
    if (!foldIsDue(starts.length, this.options.config.threshold, () => this.outgrowsRoom(history, covered))) return;
    const turn = turnStarts(history).length;
    if (this.backoff.attemptedIn(turn)) return; // never more than one attempt per turn
    const end = foldBatchEnd(starts, this.options.config.batchTurns);
    const batchKey = foldBatchKey(history, covered, end, state?.version ?? 0);
    if (!this.backoff.mayAttempt(batchKey, () => this.options.context.now())) return;
    this.backoff.attempting(turn);
    const source = history.slice(covered, end);
    const job: FoldJob = {
      state,
      source,
      batch: structuredClone(source) as ChatMessage[],
      covered,
      coveredEnd: end,
      foldedTurns: (state?.coveredTurns ?? 0) + turnStarts(history, covered, end).length,
      fingerprint: historyFingerprint(history, 0, end),
      batchKey,
      turn,
      generation: this.generation,
    };
    this.pending = this.runFold(job).finally(() => {
      this.pending = undefined;
      this.abort = undefined;
    });
  }

  /** Waits for the running fold, at most `ms`. */
  async waitForFold(ms: number): Promise<void> {
    if (!this.pending) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Resolves when no fold is running and the queue has drained. */
  async whenIdle(): Promise<void> {
    while (this.pending) await this.pending;
    await this.options.queue.run(async () => undefined);
  }

  /** Stops background work: a running fold is aborted and commits nothing. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.generation++;
    this.abort?.abort(new DisposedError(`${SUMMARIZATION_STRATEGY_ID} for agent "${this.options.context.agentId}"`));
    if (this.pending) await this.pending;
  }

  private async runFold(job: FoldJob): Promise<void> {
    const { context, counter, summarizer, config } = this.options;
    const base = this.eventBase(job.turn);
    const batchTurns = turnStarts(job.batch).length;
    safeEmit(context.events, 'summary-start', { ...base, turns: batchTurns, messages: job.batch.length, model: summarizer.model, offline: summarizer.offline });
    const abort = new AbortController();
    this.abort = abort;
    try {
      // Counted on the caller's messages, whose counts the composer has cached by message identity;
      // the copy's would all be counted again.
      const batchTokens = counter.countMessages(job.source);
      const previousTokens = job.state?.summaryTokens ?? 0;
      const replacedTokens = batchTokens + previousTokens;
      const cap = summaryCap({ summaryMaxTokens: config.summaryMaxTokens, memoryShare: config.memoryShare, available: this.options.available, room: this.room });
      const maxTokens = summaryTargetTokens(cap, previousTokens, batchTokens);
      const text = (
        await withTimeout(
          summarizer.summarize({ previousSummary: job.state?.text ?? null, messages: job.batch, firstIndex: job.covered, maxTokens, counter, signal: abort.signal }),
          abort,
          config.summaryTimeoutMs,
          () => new LLMTimeoutError({ client: summarizer.name, model: summarizer.model, timeoutMs: config.summaryTimeoutMs }),
        )
      ).trim();
      const details = { client: summarizer.name, model: summarizer.model };
      if (text === '') throw new LLMResponseError('the summary is empty', details);
      const summaryTokens = counter.count(text);
      if (summaryTokens > cap) {
        throw new LLMResponseError(`the summary has ${summaryTokens} tokens, over the cap of ${cap} (summaryMaxTokens, or the summary's share of the budget)`, details);
      }
      if (summaryTokens >= replacedTokens) {
        throw new LLMResponseError(`the summary (${summaryTokens} tokens) is not smaller than what it replaces (${replacedTokens} tokens)`, details);
      }
      const committed = await this.options.queue.run(() => this.commit(job, text, summaryTokens, batchTokens));
      if (committed) {
        safeEmit(context.events, 'summary-end', {
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
      const failure = this.backoff.failed(job.batchKey, context.now());
      safeEmit(context.events, 'summary-error', { ...base, error: errorInfo(error), ...failure });
    }
  }

  /** Writes the new buffer, unless a re-sync, dispose or another writer made this work stale. */
  private async commit(job: FoldJob, text: string, summaryTokens: number, batchTokens: number): Promise<SummaryState | undefined> {
    if (job.generation !== this.generation || (this.buffer?.version ?? 0) !== (job.state?.version ?? 0)) return undefined;
    const { summarizer, context } = this.options;
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
      updatedAt: context.now(),
    };
    await context.store.set(this.key, next);
    this.buffer = next;
    this.backoff.succeeded();
    return next;
  }

  /** True when the history from `covered` on takes more than the room beside the summary's share. */
  private outgrowsRoom(history: ReadonlyArray<ChatMessage>, covered: number): boolean {
    if (this.room === undefined) return false;
    const limit = this.room.room - this.room.allowance;
    const ledger = this.options.ledger;
    ledger.sync(history);
    let tokens = 0;
    for (let index = history.length - 1; index >= covered && tokens <= limit; index--) tokens += ledger.tokensWithin(history, index, limit - tokens + 1);
    return tokens > limit;
  }

  private eventBase(turn: number): CtxkitEventBase {
    const { agentId, sessionId, strategyId } = this.options.context;
    return { agentId, sessionId, strategyId, turn };
  }
}
