import { randomUUID } from 'node:crypto';

import {
  type ChatMessage,
  conversationCacheKey,
  CtxkitError,
  type CtxkitEventBase,
  DisposedError,
  ErrorCodes,
  type ITokenCounter,
  LLMResponseError,
  LLMTimeoutError,
  safeEmit,
  StoreError,
  type StoreKey,
  type StrategyContext,
  type ToolDefinition,
} from '@ctxkit/core';
import {
  contentlessSummary,
  contentlessSummaryMessage,
  formatStoreKey,
  type HistoryLedger,
  type SerialQueue,
} from '@ctxkit/core/strategy-kit';

import { historyFingerprint } from '../history/history-fingerprint';
import { turnStarts } from '../history/turn-starts';
import { SUMMARIZATION_STRATEGY_ID } from '../strategy-id';
import type { SummarizationConfig } from '../summarization-config';
import type { Summarizer } from '../summarizer';
import {
  coverageAfter,
  type CoveredPrefix,
  earlierCoverageOf,
  emptySummaryRecord,
  sameSummary,
  type SummaryRecord,
  type SummaryState,
  summaryStateKey,
} from '../summary-state';
import { FoldBackoff, type FoldFailure } from './fold-backoff';
import { foldBatchEnd, foldBatchKey, foldIsDue } from './fold-batch';
import { FOLD_CLAIM_GRACE_MS, type FoldClaim, isLiveClaim } from './fold-claim';
import type { CommittedFold } from './fold-epochs';
import { SharedSummaryRecord } from './shared-summary-record';
import { type ComposedRoom, summaryCap, summaryTargetTokens } from './summary-cap';
import { withTimeout } from './with-timeout';

/** What {@link FoldScheduler} needs from the strategy. */
export interface FoldSchedulerOptions {
  config: Pick<
    SummarizationConfig,
    | 'threshold'
    | 'batchTurns'
    | 'summaryMaxTokens'
    | 'memoryShare'
    | 'maxConsecutiveFailures'
    | 'retryBackoffMs'
    | 'summaryTimeoutMs'
  >;
  /** The session's context: ids, store, events, clock. */
  context: StrategyContext;
  /** The agent's counter (summaries are sent with its payload). */
  counter: ITokenCounter;
  summarizer: Summarizer;
  /** The composer's ledger of the conversation (measures whether the unsummarized history outgrows its room). */
  ledger: HistoryLedger;
  /** Tokens of the budget for the payload, for the summary's cap before any composition. */
  available: number;
  /** The session's queue: a fold's commit runs in it, between compositions and turn completions. */
  queue: SerialQueue;
  /**
   * Told of each committed fold in the commit's turn of the queue (before anything else runs there).
   * Must not throw: the fold is committed whatever it does.
   */
  onFolded?: (fold: CommittedFold) => Promise<void>;
}

/** The fold {@link FoldScheduler.nextFold} finds due: history messages `[from, to)`. */
export interface NextFold {
  from: number;
  to: number;
  /** Turns among them. */
  turns: number;
  reason?: never;
}

/** Why no fold would start. */
export interface NoFold {
  reason: string;
}

/** One background fold: the batch, what it starts from, and what the buffer becomes on success. */
interface FoldJob {
  /** The claim written for it: while it stands, no other fold of the session starts. */
  claim: FoldClaim;
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
  trigger: FoldTrigger;
  /** The conversation's `cacheKey`, when every message of the batch was in the last request a model received. */
  cacheKey?: string;
  /** That request's messages before the batch and its tools (see `SummarizerInput.conversation`). */
  conversation?: { lead: ChatMessage[]; tools: ToolDefinition[]; leadHasSummary: boolean };
}

/**
 * The history messages `[from, to)` of the last composition a model received, known by their first
 * and last message: a later history holding the same objects at those indexes holds that window.
 */
interface SentWindow {
  from: number;
  to: number;
  first: Readonly<ChatMessage>;
  last: Readonly<ChatMessage>;
  /** The request's messages before `history[from]` (system messages, the summary block), when known. */
  lead?: ChatMessage[];
  tools: ToolDefinition[];
  /** The version of the summary that request sent (0: none). */
  summaryVersion: number;
}

/** What started a fold: a turn's end that found it due, or an idle session before its prompt cache expires. */
export type FoldTrigger = 'turn' | 'idle';

function errorInfo(error: unknown): { code: string; message: string } {
  if (CtxkitError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: ErrorCodes.STRATEGY_ERROR, message: error instanceof Error ? error.message : String(error) };
}

/** A fold that is due, as decided from one reading of the session's record. */
interface FoldPlan {
  reason?: never;
  state: SummaryState | null;
  covered: number;
  end: number;
  turn: number;
  batchKey: string;
  /** The failure accounting with this attempt recorded. */
  failures: SummaryRecord['failures'];
}

/**
 * The summary buffer of one session and the background folds that grow it. The buffer, the failure
 * accounting and the running fold's claim live in one record in the store ({@link SharedSummaryRecord}),
 * read afresh by every composition and turn completion and written only with compare-and-set, so that
 * instances and processes serving one session share them: a fold starts only after its claim is
 * written (no other fold of the session starts while it stands, so no turns are folded twice), and its
 * summary is committed only onto the buffer it was made from (otherwise it is discarded, never written
 * over a newer summary). It drops the buffer when the caller's history no longer starts with the
 * messages it covers (re-sync); a history shorter than the buffer covers that is the start of the
 * messages it covers is a late request (another instance served a longer one already), which uses no
 * summary and changes nothing in the record. It decides when a fold is due and which whole turns it takes, runs the
 * summarizer outside the session's queue (with a timeout), checks the summary and commits it through
 * the queue, and keeps the failure accounting that prevents loops.
 * Emits `summary-start`, `summary-end`, `summary-error`, `summary-resync` and `strategy-warning`.
 * @see docs/strategies/dynamic-summarization.md
 */
export class FoldScheduler {
  private readonly record: SharedSummaryRecord;
  /** Names this instance's claims. */
  private readonly instanceId = randomUUID();
  private claims = 0;
  private pending: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** The running fold a composition waited for in vain: no later composition waits for it. */
  private waitedOut: Promise<void> | undefined;
  /** Bumped by re-sync, undo and dispose, so that a running fold cannot commit stale work. */
  private generation = 0;
  private disposed = false;
  /** The room and the summary's share of it at the last composition (what a fold may grow the summary to). */
  private room: ComposedRoom | undefined;
  /** The history window of the last composition a model received (see {@link noteSent}). */
  private sent: SentWindow | undefined;

  constructor(private readonly options: FoldSchedulerOptions) {
    this.record = new SharedSummaryRecord(
      options.context.store,
      summaryStateKey(options.context.agentId, options.context.sessionId),
    );
  }

  /** The session's summary buffer as last read (`null` when there is none). */
  get state(): SummaryState | null {
    return this.record.current.summary;
  }

  /** True while a background fold of this instance runs (or is being claimed). */
  get running(): boolean {
    return this.pending !== undefined;
  }

  /** Failed folds in a row, across every instance serving the session. */
  get consecutiveFailures(): number {
    return this.record.current.failures.consecutiveFailures;
  }

  /** True when attempts stopped after too many failures (until the turns to fold change). */
  get stopped(): boolean {
    return this.record.current.failures.stoppedAt !== null;
  }

  /** Records the room of the last composition: the summary's cap and the "outgrows its room" trigger follow it. */
  noteRoom(room: ComposedRoom): void {
    this.room = room;
  }

  /**
   * Records that a model received history messages `[from, history.length)` (the composition's
   * window): a fold whose batch lies within them sends its summary request as the continuation of
   * that request, which reads the conversation's cached prompt.
   */
  noteSent(
    history: ReadonlyArray<ChatMessage>,
    from: number,
    sent: { messages: ReadonlyArray<ChatMessage>; tools: ToolDefinition[]; summaryVersion: number } = {
      messages: [],
      tools: [],
      summaryVersion: 0,
    },
  ): void {
    if (from >= history.length) {
      this.sent = undefined;
      return;
    }
    const at = sent.messages.indexOf(history[from]!);
    this.sent = {
      from,
      to: history.length,
      first: history[from]!,
      last: history[history.length - 1]!,
      tools: sent.tools,
      summaryVersion: sent.summaryVersion,
      ...(at >= 0 ? { lead: sent.messages.slice(0, at) } : {}),
    };
  }

  /**
   * What a fold of `plan`'s batch, all of it in the last request a model received, knows of that
   * request: the conversation's key, and its messages before the batch and tools when they lead
   * straight to it (the window starts at the batch) with the summary the fold starts from.
   */
  private sentRequest(plan: FoldPlan): Pick<FoldJob, 'cacheKey' | 'conversation'> {
    const sent = this.sent!;
    const cacheKey = conversationCacheKey(this.options.context.agentId, this.options.context.sessionId);
    const leads =
      sent.lead !== undefined && sent.from === plan.covered && sent.summaryVersion === (plan.state?.version ?? 0);
    if (leads)
      return { cacheKey, conversation: { lead: sent.lead!, tools: sent.tools, leadHasSummary: plan.state !== null } };
    // Otherwise only its system messages lead to the batch, and the previous summary goes on its own.
    const system = (sent.lead ?? []).filter((message) => message.role === 'system');
    return { cacheKey, conversation: { lead: system, tools: sent.tools, leadHasSummary: false } };
  }

  /** True when history messages `[from, to)` were all in the last request a model received (the same objects). */
  private wasSent(history: ReadonlyArray<ChatMessage>, from: number, to: number): boolean {
    const sent = this.sent;
    return (
      sent !== undefined &&
      sent.from <= from &&
      to <= sent.to &&
      history[sent.from] === sent.first &&
      history[sent.to - 1] === sent.last
    );
  }

  /**
   * Reads the session's record from the store (every call: another process may have folded). A store
   * that fails leaves the record last read in use, and returns false.
   */
  async load(): Promise<boolean> {
    try {
      await this.record.refresh();
      return true;
    } catch (error) {
      safeEmit(this.options.context.events, 'strategy-warning', {
        ...this.eventBase(0),
        message:
          `could not read the summary buffer; composing with the one read last (if any) this ` +
          `time: ${errorInfo(error).message}`,
        code: errorInfo(error).code,
      });
      return false;
    }
  }

  /**
   * Drops a summary whose covered messages the caller's history edited or replaced: at once for this
   * instance, and in the store (with compare-and-set, in the background) unless another writer
   * replaced that summary first. A summary that covers more messages than the history has, where the
   * messages both hold are the same, is kept: the request is late ({@link isAheadOf}).
   */
  resyncIfStale(history: ReadonlyArray<ChatMessage>): void {
    const state = this.state;
    if (!state) return;
    const reason = rewriteReason(state, history);
    if (reason === undefined) return;
    const { context } = this.options;
    const turn = turnStarts(history).length;
    this.generation++;
    this.abort?.abort(new Error('re-sync'));
    this.record.useUntilNextRead(emptySummaryRecord());
    this.record
      .update((current) => (sameSummary(current.summary, state) ? emptySummaryRecord() : undefined))
      .catch((error: unknown) => {
        safeEmit(context.events, 'strategy-warning', {
          ...this.eventBase(turn),
          message: `could not delete the stale summary: ${errorInfo(error).message}`,
          code: errorInfo(error).code,
        });
      });
    safeEmit(context.events, 'summary-resync', { ...this.eventBase(turn), reason });
  }

  /**
   * Starts a background fold of the oldest whole turns when one is due, none is running here or
   * elsewhere (a live claim in the record), none was attempted in this turn, the back-off has passed
   * and attempts have not stopped for this batch. The fold first writes its claim (compare-and-set;
   * refused, it decides again from the record another writer left), then runs. Returns without
   * waiting for it.
   */
  maybeStartFold(history: ReadonlyArray<ChatMessage>, trigger: FoldTrigger = 'turn'): void {
    if (this.pending || this.disposed) return;
    const planned = this.plan(history, this.record.current, (covered) => this.outgrowsRoom(history, covered), trigger);
    if (planned.reason !== undefined) return;
    // A shallow copy: the caller may grow its array while the claim is written; messages keep their identity.
    const snapshot = history.slice();
    this.pending = this.claimAndFold(snapshot, planned.state, this.generation, trigger).finally(() => {
      this.pending = undefined;
      this.abort = undefined;
    });
  }

  /**
   * The summary a composition of `history` uses: the buffer as last read, or `null` when there is none,
   * it no longer matches the start of `history` (a composition drops it: {@link resyncIfStale}), or it
   * covers more messages than `history` has ({@link isAheadOf}).
   */
  summaryFor(history: ReadonlyArray<ChatMessage>): SummaryState | null {
    const state = this.state;
    return state && state.coveredMessages <= history.length && rewriteReason(state, history) === undefined
      ? state
      : null;
  }

  /**
   * True when the buffer covers more messages than `history` has and the messages both hold are the
   * same (as far as the coverage it keeps tells): a late request, after another instance served a
   * longer history. It is composed without the summary and writes nothing: the summary, the running
   * fold's claim and the failure accounting stay as they are for every instance.
   */
  isAheadOf(history: ReadonlyArray<ChatMessage>): boolean {
    const state = this.state;
    return state !== null && state.coveredMessages > history.length && rewriteReason(state, history) === undefined;
  }

  /**
   * The fold `onTurnComplete(history)` would start now, decided as it decides (the record as last
   * read, a stale summary dropped first, the room of a composition in `room`), without writing a claim
   * or asking the summarizer; or why none would start.
   */
  nextFold(history: ReadonlyArray<ChatMessage>, room: ComposedRoom): NextFold | NoFold {
    if (this.disposed) return { reason: 'the strategy is disposed' };
    if (this.pending) return { reason: 'a fold of this session is running here' };
    const current = this.record.current;
    const record =
      current.summary !== null && rewriteReason(current.summary, history) !== undefined
        ? emptySummaryRecord()
        : current;
    const planned = this.plan(history, record, (covered) => this.outgrowsRoom(history, covered, room), 'turn');
    if (planned.reason !== undefined) return planned;
    return { from: planned.covered, to: planned.end, turns: turnStarts(history, planned.covered, planned.end).length };
  }

  /**
   * Writes `summary` back as the session's buffer (compare-and-set, like every write of the record;
   * the failure accounting and a running fold's claim stay as they are), so that every instance and
   * process uses it from its next read. A fold running here is aborted: it was made from the summary
   * being replaced, and commits nothing.
   * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails or keeps refusing the write
   */
  async restore(summary: SummaryState | null): Promise<void> {
    this.generation++;
    this.abort?.abort(new Error('undo'));
    const written = await this.record.update((current) => ({ ...current, summary }));
    if (written === undefined) {
      const { store, agentId, sessionId } = this.options.context;
      throw new StoreError(
        store.name,
        'setIfVersion',
        formatStoreKey(summaryStateKey(agentId, sessionId)),
        'other writers kept replacing the summary record meanwhile; undo again',
      );
    }
  }

  /** Waits for the running fold, at most `ms`. */
  async waitForFold(ms: number): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      pending.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    if (!ended) this.waitedOut = pending;
  }

  /**
   * True when a composition may wait for the running fold: one runs here, no composition has waited
   * for it in vain yet, and the fold before it did not fail (a retry after a failure runs in the
   * background only). So a summarizer that is down holds at most one payload, once.
   */
  get waitable(): boolean {
    return this.pending !== undefined && this.pending !== this.waitedOut && this.consecutiveFailures === 0;
  }

  /** Resolves when no fold is running, the queue has drained and the record's writes have settled. */
  async whenIdle(): Promise<void> {
    while (this.pending) await this.pending;
    await this.options.queue.run(async () => undefined);
    await this.record.idle();
  }

  /** Stops background work: a running fold is aborted, commits nothing and gives its claim up. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.generation++;
    const { strategyId, agentId, sessionId } = this.options.context;
    this.abort?.abort(
      new DisposedError(
        `${strategyId || SUMMARIZATION_STRATEGY_ID} (background fold) for agent "${agentId}", session "${sessionId}"`,
      ),
    );
    if (this.pending) await this.pending;
    await this.record.idle();
  }

  /**
   * The fold due on `record`, with the attempt recorded in its accounting, or why none may start.
   * `outgrowsRoom(covered)` is asked only when the turn threshold alone does not make it due. An idle
   * fold is due with any two unsummarized turns (the newest stays verbatim), below the threshold.
   */
  private plan(
    history: ReadonlyArray<ChatMessage>,
    record: SummaryRecord,
    outgrowsRoom: (covered: number) => boolean,
    trigger: FoldTrigger,
  ): FoldPlan | NoFold {
    const { config, context } = this.options;
    const now = () => context.now();
    const state = record.summary;
    const covered = state?.coveredMessages ?? 0;
    if (covered > history.length)
      return { reason: `the summary covers ${covered} messages, more than the history has` };
    const starts = turnStarts(history, covered);
    if (
      trigger === 'idle' ? starts.length < 2 : !foldIsDue(starts.length, config.threshold, () => outgrowsRoom(covered))
    ) {
      return {
        reason:
          `${starts.length} unsummarized turn${starts.length === 1 ? '' : 's'} (a fold starts ` +
          `past ${config.threshold}, or once they outgrow the room beside the summary)`,
      };
    }
    if (isLiveClaim(record.fold, now))
      return { reason: 'a fold of this session is running (here or in another process)' };
    const turn = turnStarts(history).length;
    const backoff = new FoldBackoff(config, record.failures);
    if (backoff.attemptedIn(turn))
      return { reason: `a fold was already attempted in turn ${turn} (one attempt a turn)` };
    const end = foldBatchEnd(starts, config.batchTurns);
    const batchKey = foldBatchKey(history, covered, end, state?.version ?? 0);
    if (!backoff.mayAttempt(batchKey, now)) {
      return backoff.stopped
        ? {
            reason:
              `folds stopped after ${backoff.consecutiveFailures} failures in a row, until the turns to fold ` +
              `change`,
          }
        : { reason: `the back-off after a failed fold lasts until ${new Date(backoff.state.retryAt).toISOString()}` };
    }
    backoff.attempting(turn);
    return { state, covered, end, turn, batchKey, failures: backoff.state };
  }

  /**
   * Writes the claim of the fold due (deciding again on the record another writer left), then runs it.
   * On the summary it was found due on, it stays due; on another one (another process folded), the
   * turn threshold decides, without measuring the room again outside the session's queue.
   */
  private async claimAndFold(
    history: ReadonlyArray<ChatMessage>,
    dueOn: SummaryState | null,
    generation: number,
    trigger: FoldTrigger,
  ): Promise<void> {
    const { context, config } = this.options;
    let job: FoldJob | undefined;
    let written: SummaryRecord | undefined;
    try {
      written = await this.record.update((current) => {
        // The record may be another writer's: its summary must still be the start of this history.
        if (
          current.summary &&
          (current.summary.coveredMessages > history.length ||
            historyFingerprint(history, 0, current.summary.coveredMessages) !== current.summary.fingerprint)
        )
          return undefined;
        const plan = this.plan(history, current, () => sameSummary(current.summary, dueOn), trigger);
        if (plan.reason !== undefined) return undefined;
        const claim: FoldClaim = {
          id: `${this.instanceId}/${++this.claims}`,
          batchKey: plan.batchKey,
          turn: plan.turn,
          expiresAt: context.now() + config.summaryTimeoutMs + FOLD_CLAIM_GRACE_MS,
        };
        job = this.jobOf(history, plan, claim, generation, trigger);
        return { ...current, failures: plan.failures, fold: claim };
      });
    } catch (error) {
      safeEmit(context.events, 'strategy-warning', {
        ...this.eventBase(turnStarts(history).length),
        message: `could not write the fold's claim; no fold this turn: ${errorInfo(error).message}`,
        code: errorInfo(error).code,
      });
      return;
    }
    if (job === undefined || written?.fold?.id !== job.claim.id) return;
    if (generation !== this.generation) {
      await this.releaseClaim(job);
      return;
    }
    await this.runFold(job);
  }

  private jobOf(
    history: ReadonlyArray<ChatMessage>,
    plan: FoldPlan,
    claim: FoldClaim,
    generation: number,
    trigger: FoldTrigger,
  ): FoldJob {
    const source = history.slice(plan.covered, plan.end);
    return {
      claim,
      state: plan.state,
      source,
      batch: structuredClone(source) as ChatMessage[],
      covered: plan.covered,
      coveredEnd: plan.end,
      foldedTurns: (plan.state?.coveredTurns ?? 0) + turnStarts(history, plan.covered, plan.end).length,
      fingerprint: historyFingerprint(history, 0, plan.end),
      batchKey: plan.batchKey,
      turn: plan.turn,
      generation,
      trigger,
      ...(this.wasSent(history, plan.covered, plan.end) ? this.sentRequest(plan) : {}),
    };
  }

  private async runFold(job: FoldJob): Promise<void> {
    const { context, counter, summarizer, config } = this.options;
    const base = this.eventBase(job.turn);
    const batchTurns = turnStarts(job.batch).length;
    safeEmit(context.events, 'summary-start', {
      ...base,
      turns: batchTurns,
      messages: job.batch.length,
      model: summarizer.model,
      offline: summarizer.offline,
      trigger: job.trigger,
    });
    const abort = new AbortController();
    this.abort = abort;
    try {
      // Counted on the caller's messages, whose counts the composer has cached by message identity;
      // the copy's would all be counted again.
      const batchTokens = counter.countMessages(job.source);
      const previousTokens = job.state?.summaryTokens ?? 0;
      const replacedTokens = batchTokens + previousTokens;
      const cap = summaryCap({
        summaryMaxTokens: config.summaryMaxTokens,
        memoryShare: config.memoryShare,
        available: this.options.available,
        room: this.room,
      });
      const maxTokens = summaryTargetTokens(cap, previousTokens, batchTokens);
      const text = (
        await withTimeout(
          summarizer.summarize({
            previousSummary: job.state?.text ?? null,
            messages: job.batch,
            firstIndex: job.covered,
            maxTokens,
            counter,
            signal: abort.signal,
            ...(job.cacheKey !== undefined ? { cacheKey: job.cacheKey } : {}),
            ...(job.conversation !== undefined ? { conversation: job.conversation } : {}),
          }),
          abort,
          config.summaryTimeoutMs,
          () =>
            new LLMTimeoutError({
              client: summarizer.name,
              model: summarizer.model,
              timeoutMs: config.summaryTimeoutMs,
            }),
        )
      ).trim();
      const details = { client: summarizer.name, model: summarizer.model };
      // An empty, acknowledgement-only or error-message answer never replaces the turns it would fold.
      const contentless = contentlessSummary(text);
      if (contentless) throw new LLMResponseError(contentlessSummaryMessage(contentless, text), details);
      const summaryTokens = counter.count(text);
      if (summaryTokens > cap) {
        throw new LLMResponseError(
          `the summary has ${summaryTokens} tokens, over the cap of ${cap} (summaryMaxTokens, or the summary's ` +
            `share of the budget)`,
          details,
        );
      }
      if (summaryTokens >= replacedTokens) {
        throw new LLMResponseError(
          `the summary (${summaryTokens} tokens) is not smaller than what it replaces (${replacedTokens} tokens)`,
          details,
        );
      }
      const committed = await this.options.queue.run(async () => {
        const written = await this.commit(job, text, summaryTokens, batchTokens);
        // Recorded in the commit's turn of the queue: an undo of this instance cannot run in between.
        if (written)
          await this.options.onFolded?.({
            replaced: written.replaced,
            summary: written.summary,
            range: { from: job.covered, to: job.coveredEnd },
            turns: batchTurns,
            batchTokens,
            replacedTokens,
            turn: job.turn,
          });
        return written?.summary;
      });
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
      } else {
        await this.releaseClaim(job);
      }
    } catch (error) {
      if (job.generation !== this.generation) {
        // Aborted by re-sync or dispose: not a failure.
        await this.releaseClaim(job);
        return;
      }
      const failure = await this.options.queue.run(() => this.recordFailure(job));
      safeEmit(context.events, 'summary-error', { ...base, error: errorInfo(error), ...failure });
    }
  }

  /**
   * Writes the new buffer onto the one the fold started from, and clears the fold's claim. Writes
   * nothing after a re-sync or dispose here, or when another writer replaced that buffer meanwhile
   * (another process's fold or re-sync): the summary is then discarded, never written over theirs.
   */
  private async commit(
    job: FoldJob,
    text: string,
    summaryTokens: number,
    batchTokens: number,
  ): Promise<{ summary: SummaryState; replaced: SummaryRecord } | undefined> {
    if (job.generation !== this.generation) return undefined;
    const { summarizer, context, config } = this.options;
    const next: SummaryState = {
      format: 1,
      version: (job.state?.version ?? 0) + 1,
      text,
      coveredMessages: job.coveredEnd,
      coveredTurns: job.foldedTurns,
      fingerprint: job.fingerprint,
      earlierCoverage: coverageAfter(job.state),
      summaryTokens,
      coveredTokens: (job.state?.coveredTokens ?? 0) + batchTokens,
      summarizer: { name: summarizer.name, model: summarizer.model, offline: summarizer.offline },
      updatedAt: context.now(),
    };
    let replaced: SummaryRecord | undefined;
    const written = await this.record.update((current) => {
      if (!sameSummary(current.summary, job.state)) return undefined;
      replaced = current;
      const backoff = new FoldBackoff(config, current.failures);
      backoff.succeeded();
      return {
        format: 2,
        summary: next,
        failures: backoff.state,
        fold: current.fold?.id === job.claim.id ? null : current.fold,
      };
    });
    return written && replaced ? { summary: next, replaced } : undefined;
  }

  /**
   * Counts a failed attempt in the shared accounting and clears its claim, unless the record moved on
   * (a re-sync or another fold took the claim): then the attempt no longer counts. A store that fails
   * here leaves the claim to expire.
   */
  private async recordFailure(job: FoldJob): Promise<FoldFailure> {
    const { config, context } = this.options;
    let failure: FoldFailure | undefined;
    try {
      await this.record.update((current) => {
        failure = undefined;
        if (current.fold?.id !== job.claim.id) return undefined;
        const backoff = new FoldBackoff(config, current.failures);
        failure = backoff.failed(job.batchKey, context.now());
        return { ...current, failures: backoff.state, fold: null };
      });
    } catch {
      // Reported with the summary-error below; the claim expires on its own.
    }
    if (failure) return failure;
    const current = this.record.current.failures;
    return {
      consecutiveFailures: current.consecutiveFailures,
      retryAt: current.stoppedAt !== null ? null : current.retryAt,
    };
  }

  /** Clears the job's claim if it still stands, so that the session's next fold need not wait for it to expire. */
  private async releaseClaim(job: FoldJob): Promise<void> {
    await this.record
      .update((current) => (current.fold?.id === job.claim.id ? { ...current, fold: null } : undefined))
      .catch(() => undefined);
  }

  /** True when the history from `covered` on takes more than the room beside the summary's share. */
  private outgrowsRoom(
    history: ReadonlyArray<ChatMessage>,
    covered: number,
    room: ComposedRoom | undefined = this.room,
  ): boolean {
    if (room === undefined) return false;
    const limit = room.room - room.allowance;
    const ledger = this.options.ledger;
    ledger.sync(history);
    let tokens = 0;
    for (let index = history.length - 1; index >= covered && tokens <= limit; index--)
      tokens += ledger.tokensWithin(history, index, limit - tokens + 1);
    return tokens > limit;
  }

  private eventBase(turn: number): CtxkitEventBase {
    const { agentId, sessionId, strategyId } = this.options.context;
    return { agentId, sessionId, strategyId, turn };
  }
}

/**
 * Why the messages `state` covers are not those `history` starts with (edited or replaced history), or
 * `undefined` when they are. A history shorter than the summary covers is compared up to the longest
 * earlier coverage it holds (none: nothing tells them apart, so it is taken for a late request).
 */
function rewriteReason(state: SummaryState, history: ReadonlyArray<ChatMessage>): string | undefined {
  let compared: CoveredPrefix | undefined = state;
  if (state.coveredMessages > history.length)
    compared = earlierCoverageOf(state)
      .filter((earlier) => earlier.coveredMessages <= history.length)
      .pop();
  if (compared === undefined || historyFingerprint(history, 0, compared.coveredMessages) === compared.fingerprint)
    return undefined;
  return (
    `the first ${compared.coveredMessages} messages of the history differ from those the summary covers ` +
    `(edited or replaced history)`
  );
}
