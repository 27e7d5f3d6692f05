import {
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  CompactionNoProgressError,
  conversationCacheKey,
  CtxkitError,
  type CtxkitEventBase,
  ErrorCodes,
  type ITokenCounter,
  LLMNotConfiguredError,
  LLMResponseError,
  safeEmit,
  type StrategyContext,
  type TokenUsage,
  type ToolDefinition,
  type UserMessage,
} from '@ctxkit/core';
import { FailureBackoff, LARGE_MESSAGE_CHARS, messageText } from '@ctxkit/core/strategy-kit';

import type { CachedOutputs } from '../cache/cached-outputs';
import type { ViewEntry } from '../view/view-entry';
import { compactMessages, type CompactMessagesResult } from './compact-messages';
import { type BackoffSnapshot, CompactionBackoff } from './compaction-backoff';
import type { CompactionConfig } from './compaction-config';
import { type CompactionState, continuesCovered, type SavedCompactionState } from './compaction-state';
import { type HistoryLayout, layoutHistory, NO_COMPACTION_LAYOUT } from './history-layout';
import type { CompactionReply } from './parse-compaction-reply';
import { compactWithProvider, type ProviderCompactionOptions } from './provider-compaction';
import { repairToolPairs, summaryInput } from './summary-input';
import { splitForCompaction } from './tail-turns';
import { saveTranscript } from './transcript';

/** What caused a compaction. */
export type CompactionTrigger = 'auto' | 'manual' | 'budget';

/** What a compaction reads of the working view. */
export interface CompactionView {
  /** The layout the view follows (the form the caller passes its history in). */
  readonly currentLayout: HistoryLayout;
  /** The whole view, retain + summary first (every output cached): what the summary is written from. */
  entries(): Promise<ViewEntry[]>;
  /** Tokens of the whole view, counted newest first and no further than `limit`. */
  tokensUpTo(limit: number): Promise<number>;
}

/** What a {@link Compactor} knew, as JSON: kept with a compaction epoch, so that its undo restores it. */
export interface CompactorSnapshot {
  /** The compaction in effect (`null`: none), without the messages it covered. */
  state: SavedCompactionState | null;
  backoff: BackoffSnapshot;
}

/** A compaction that replaced the history, with what the compactor knew before it. */
export interface CompactionDone {
  before: CompactorSnapshot;
  state: Readonly<CompactionState>;
  trigger: CompactionTrigger;
  turn: number;
}

/** Whether the next payload or checkpoint would compact, and why (or why not), decided without compacting. */
export interface CompactionPlan {
  trigger: CompactionTrigger | undefined;
  /** One line saying why it would compact, or why automatic compaction is waiting. */
  note: string | undefined;
}

/** Where a {@link Compactor} works. */
export interface CompactorOptions {
  config: CompactionConfig;
  context: StrategyContext;
  strategyId: string;
  /** The strategy's model: the summary call's when `config.model` is `null`. */
  model: string;
  counter: ITokenCounter;
  /** The context limit the threshold is a share of. */
  contextLimit: number;
  /** The session's cached outputs, collected after a compaction; `undefined` while the cache is off. */
  outputs: CachedOutputs | undefined;
  eventBase(turn: number): CtxkitEventBase;
  /** Called once a compaction has replaced the history (before `compaction-end`), to keep it as an epoch. */
  onCompacted?(done: CompactionDone): Promise<void>;
}

/** Why a payload was composed without the compaction due for it, as `stats.extra.compaction.skipped` reports it. */
export interface SkippedCompaction {
  /**
   * `running`: its summary call has not answered yet; `backing-off`: the last summary call failed and
   * the wait after it has not passed; `failed`: the attempt this payload made failed (reported by
   * `compaction-error`).
   */
  reason: 'running' | 'backing-off' | 'failed';
  message: string;
  /**
   * When automatic compaction may be tried again after failed summary calls (ms since epoch); `null` when the last call
   * did not fail.
   */
  retryAt: number | null;
}

/** A compaction whose summary call was started, with what its commit needs. */
interface RunningCompaction {
  trigger: CompactionTrigger;
  /** The turn it started in. */
  turn: number;
  /** The caller's history it compacts (a copy of the array, of the caller's messages). */
  history: ChatMessage[];
  /** The view's entries kept after the summary, and the user message carried right after it. */
  tail: ViewEntry[];
  carried: ViewEntry | undefined;
  keptTokens: number;
  keptMessages: number;
  tokensBefore: number;
  transcriptRef: string;
  /** The model client's name. */
  client: string;
  abort: AbortController;
  /** Resolves (never rejects) once the call has answered or failed: `outcome` is then set. */
  settled: Promise<void>;
  outcome: { reply: CompactionReply } | { error: unknown; at: number } | undefined;
}

/** The last failure, as `stats.extra.compaction.lastError` reports it. */
interface CompactionFailure {
  code: string;
  message: string;
  trigger: CompactionTrigger;
  details?: Record<string, unknown>;
}

/**
 * The compaction of one session: when to compact (threshold, back-offs, a pending `compact` request),
 * the compaction itself (transcript saved first, then retain + summary written by the model, the last
 * turns kept), and the state that maps every later history onto the compacted one. Failures are
 * reported (event, `lastError`), change nothing and never throw. An automatic compaction that cannot
 * bring the context under its threshold reports `CTXKIT_COMPACTION_NO_PROGRESS` and waits for the
 * history to grow (see {@link CompactionBackoff}).
 *
 * A caller waits for a summary call at most `maxWaitMs`; past it the call goes on in the background
 * and the next payload or checkpoint commits its answer. After a failed call, automatic compaction
 * waits (`failureBackoffMs`, doubled per failure in a row) and is then not waited for, so that a model
 * that is down never holds a payload more than once.
 */
export class Compactor {
  private current: CompactionState | undefined;
  private readonly backoff: CompactionBackoff;
  private lastUsage: TokenUsage | undefined;
  private manualRequest: { focus: string | undefined } | undefined;
  private lastError: CompactionFailure | undefined;
  /** The compaction whose summary call was started and not yet taken in. */
  private running: RunningCompaction | undefined;
  /** The wait after failed summary calls. */
  private readonly failures: FailureBackoff;
  /** Why the latest payload was composed without the compaction due for it. */
  private skipped: SkippedCompaction | undefined;
  /**
   * How far the last growth check counted (the messages `[anchor, end)` of a history with these first
   * and last-counted objects) and the tokens it still needed then: the next check counts only what was
   * appended since.
   */
  private growth:
    { anchor: number; wait: number; first: unknown; last: unknown; end: number; needed: number } | undefined;
  /** The system prompt of the latest payload, sent first in the summary call. */
  systemPrompt = '';
  /** Tokens of the latest payload's system prompt, tools and dynamic context: what a compaction can never remove. */
  fixedTokens = 0;
  /** The tools of the latest payload, sent with a provider compaction request as the turns sent them. */
  tools: ReadonlyArray<ToolDefinition> = [];
  /** The wait after failed provider compactions: meanwhile compactions go to ctxkit's summary call. */
  private readonly providerFailures: FailureBackoff;
  /** `contextLimit × thresholdRatio`: the tokens at which automatic compaction starts. */
  private readonly threshold: number;
  /** Who wrote the last compaction's summary, and why the provider did not when it fell back. */
  private engineUsed: { engine: 'provider' | 'ctxkit'; fallback: { code: string; message: string } | null } | undefined;

  constructor(private readonly options: CompactorOptions) {
    const { config, contextLimit } = options;
    this.backoff = new CompactionBackoff({
      retryAfterTokens: config.retryAfterTokens,
      factor: config.retryBackoffFactor,
      maxTokens: Math.max(config.retryAfterTokens, contextLimit),
    });
    const waits = {
      firstMs: config.failureBackoffMs,
      maxMs: Math.max(config.failureBackoffMs, config.maxFailureBackoffMs),
    };
    this.failures = new FailureBackoff(waits);
    this.providerFailures = new FailureBackoff(waits);
    this.threshold = Math.floor(contextLimit * config.thresholdRatio);
  }

  /** The current compaction; `undefined` before the first one. */
  get state(): Readonly<CompactionState> | undefined {
    return this.current;
  }

  /** Asks for a compaction at the next hook or payload (the `compact` tool). */
  request(focus: string | undefined): void {
    this.manualRequest = { focus };
  }

  /**
   * How the caller's history maps onto the compaction; a history that no longer continues it sets the
   * compaction aside (with a warning).
   */
  layout(history: ReadonlyArray<ChatMessage>, turn: number): HistoryLayout {
    const layout = layoutHistory(history, this.current);
    if (layout) return layout;
    this.current = undefined;
    this.backoff.reset();
    this.cancelRunning('the history no longer continues the compacted conversation');
    safeEmit(this.options.context.events, 'strategy-warning', {
      ...this.options.eventBase(turn),
      message:
        'The history no longer continues the compacted conversation; the compaction was set aside and the history ' +
        'is used as given.',
    });
    return NO_COMPACTION_LAYOUT;
  }

  /**
   * How the caller's history would map onto the compaction, changing nothing: `setAside` when the
   * history no longer continues it (the next payload would set it aside).
   */
  peekLayout(history: ReadonlyArray<ChatMessage>): { layout: HistoryLayout; setAside: boolean } {
    const layout = layoutHistory(history, this.current);
    return layout ? { layout, setAside: false } : { layout: NO_COMPACTION_LAYOUT, setAside: true };
  }

  /** Whether the next payload or checkpoint would compact `history`, decided as they decide but changing nothing. */
  async plan(history: ReadonlyArray<ChatMessage>, view: CompactionView, fixedTokens: number): Promise<CompactionPlan> {
    const config = this.options.config;
    if (!config.enabled) return { trigger: undefined, note: undefined };
    if (this.running) {
      const note = this.running.outcome
        ? 'a compaction finished in the background: the next payload or checkpoint takes it in'
        : 'a compaction runs in the background: the next payload uses it once it is done';
      return { trigger: undefined, note };
    }
    if (this.manualRequest) return { trigger: 'manual', note: 'a compact request is pending' };
    if (!config.auto) return { trigger: undefined, note: undefined };
    const waiting = this.growthStillNeeded(history, view.currentLayout);
    if (waiting > 0)
      return {
        trigger: undefined,
        note: `automatic compaction waits until the history grows by ${withCommas(waiting)} more tokens`,
      };
    let passing: string;
    if (this.lastUsage && this.lastUsage.total_tokens >= this.threshold) {
      passing = `the last reported usage (${withCommas(this.lastUsage.total_tokens)} tokens)`;
    } else {
      const needed = this.threshold - fixedTokens;
      const tokens = await view.tokensUpTo(needed);
      if (tokens < needed) return { trigger: undefined, note: undefined };
      passing = `the context (at least ${withCommas(fixedTokens + tokens)} tokens)`;
    }
    const note = `${passing} passes the threshold (${withCommas(this.threshold)})`;
    if (this.backingOff()) return { trigger: undefined, note: `${note}, but ${this.backingOffNote()}` };
    return { trigger: 'auto', note };
  }

  /** What the compactor knows now, as JSON (see {@link CompactorSnapshot}). */
  snapshot(): CompactorSnapshot {
    if (!this.current) return { state: null, backoff: this.backoff.snapshot() };
    const { covered: _covered, ...saved } = this.current;
    const state = { ...saved, prefix: saved.prefix.map((message) => ({ ...message })) };
    return { state, backoff: this.backoff.snapshot() };
  }

  /**
   * Puts back what the compactor knew before a compaction that was undone: the compaction then in
   * effect (`covered`: the caller's messages it replaced) and the back-off, which then counts the undo
   * as an attempt the user refused (made on the `historyLength` messages the host continues with):
   * automatic compaction waits until the history has grown by `retryAfterTokens` (times
   * `retryBackoffFactor` per refusal in a row) instead of compacting the same history again at the
   * next checkpoint. A pending `compact` request is dropped with it.
   */
  restore(snapshot: CompactorSnapshot, covered: ChatMessage[] | undefined, historyLength: number): void {
    this.cancelRunning('the compaction was undone');
    this.current = snapshot.state
      ? { ...snapshot.state, prefix: snapshot.state.prefix.map((message) => ({ ...message })), covered: covered ?? [] }
      : undefined;
    this.backoff.restore(snapshot.backoff);
    this.backoff.record(false, { full: historyLength, adopted: historyLength });
    this.manualRequest = undefined;
    this.lastUsage = undefined;
    this.lastError = undefined;
  }

  /**
   * The compaction hook: a compaction that finished in the background is committed first; while one
   * runs, nothing more. Then a pending request, else an automatic compaction when the usage passes
   * the threshold and the back-offs allow it.
   */
  async check(
    checkpoint: CompactionCheckpoint,
    history: ReadonlyArray<ChatMessage>,
    usage: TokenUsage | undefined,
    turn: number,
    /** The working view, synced with `history` when asked for (only when a compaction may run). */
    view: () => CompactionView,
  ): Promise<CompactionHookResult> {
    if (usage) this.lastUsage = usage;
    const finished = await this.settle(history, turn);
    if (finished?.compacted) return finished;
    if (this.running)
      return {
        compacted: false,
        reason: 'a compaction runs in the background: the next payload or checkpoint uses it once it is done',
      };
    if (this.manualRequest) return this.attempt(history, view(), 'manual', turn, this.manualRequest.focus);
    const config = this.options.config;
    if (!config.enabled || !config.auto) return { compacted: false, reason: 'automatic compaction is off' };
    const decideOn = checkpoint === 'after-llm-call' ? (usage ?? this.lastUsage) : (this.lastUsage ?? usage);
    if (!decideOn) return { compacted: false, reason: 'no usage reported yet' };
    if (!(decideOn.total_tokens >= this.threshold))
      return { compacted: false, reason: 'below the compaction threshold' };
    const synced = view();
    const waiting = this.growthStillNeeded(history, synced.currentLayout);
    if (waiting > 0)
      return { compacted: false, reason: `anti-loop guard: waiting until the history grows by ${waiting} more tokens` };
    if (this.backingOff()) return { compacted: false, reason: this.backingOffNote() };
    return this.attempt(history, synced, 'auto', turn);
  }

  /**
   * Before a payload: a compaction that finished in the background, a requested compaction, or an
   * automatic one when the estimate (`fixedTokens` + the view) passes the threshold and the back-offs
   * allow it. True when the history was compacted. A payload composed without the compaction due
   * for it (still running, its model backing off after a failed call, or its attempt failed) says so
   * in `stats.extra.compaction.skipped`, and with a `strategy-warning` (`compaction-error` for a failure).
   */
  async compactIfDue(history: ReadonlyArray<ChatMessage>, view: CompactionView, turn: number): Promise<boolean> {
    this.skipped = undefined;
    const config = this.options.config;
    if (!config.enabled) return false;
    if ((await this.settle(history, turn))?.compacted) return true;
    if (this.running) return this.skip('running', turn);
    let result: CompactionHookResult;
    if (this.manualRequest) result = await this.attempt(history, view, 'manual', turn, this.manualRequest.focus);
    else {
      if (!config.auto) return false;
      // After a failed call the wait holds compaction back, whatever the anti-loop guard says: reported as such.
      const backingOff = this.backingOff();
      if (!backingOff && this.growthStillNeeded(history, view.currentLayout) > 0) return false;
      const needed = this.threshold - this.fixedTokens;
      if ((await view.tokensUpTo(needed)) < needed) return false;
      if (backingOff) return this.skip('backing-off', turn);
      result = await this.attempt(history, view, 'auto', turn);
    }
    if (result.compacted) return true;
    if (this.running) return this.skip('running', turn);
    this.skipped = {
      reason: 'failed',
      message: `Composed without compaction: ${result.reason}`,
      retryAt: this.failures.retryAt,
    };
    return false;
  }

  /** Aborts a running summary call (the strategy is disposed). */
  dispose(): void {
    this.cancelRunning('the strategy was disposed');
  }

  /** The compaction part of `stats.extra`. */
  stats(): Record<string, unknown> {
    const { config, contextLimit } = this.options;
    return {
      contextLimit,
      threshold: this.threshold,
      count: this.current?.count ?? 0,
      transcriptRef: this.current?.transcriptRef ?? null,
      retryAfterTokens: this.backoff.waitTokens,
      attemptsWithoutProgress: this.backoff.missedAttempts,
      lastError: this.lastError ?? null,
      failedCallsInARow: this.failures.failedInARow,
      skipped: this.skipped ?? null,
      engine: config.engine,
      lastEngine: this.engineUsed?.engine ?? null,
      providerFallback: this.engineUsed?.fallback ?? null,
    };
  }

  /**
   * Tokens the history must still grow by before the next automatic attempt (0: it may run): the
   * messages after the last attempt's end are counted, no further than the wait.
   */
  private growthStillNeeded(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout): number {
    const anchor = this.backoff.anchorFor(layout.form);
    if (anchor === undefined) return 0;
    const counter = this.options.counter;
    const wait = this.backoff.waitTokens;
    // A history that only grew since the last look is counted on from where that look stopped.
    const known = this.growth;
    const continues =
      known !== undefined &&
      known.anchor === anchor &&
      known.wait === wait &&
      known.first === history[0] &&
      history.length >= known.end &&
      history[known.end - 1] === known.last;
    let needed = continues ? known.needed : wait;
    let index = continues ? known.end : Math.max(0, anchor);
    for (; index < history.length && needed > 0; index++) {
      const message = history[index]!;
      const text = messageText(message);
      needed -= text.length > LARGE_MESSAGE_CHARS ? counter.countUpTo(text, needed) : counter.countMessage(message);
    }
    this.growth =
      index > 0 ? { anchor, wait, first: history[0], last: history[index - 1], end: index, needed } : undefined;
    return Math.max(0, needed);
  }

  /**
   * A compaction: {@link start}s it, then waits for its summary call at most `maxWaitMs` (not at all
   * when the model's last call failed) and commits it when it answered in time; otherwise it goes on
   * in the background and the next payload or checkpoint commits it ({@link settle}).
   */
  private async attempt(
    history: ReadonlyArray<ChatMessage>,
    view: CompactionView,
    trigger: CompactionTrigger,
    turn: number,
    focus?: string,
  ): Promise<CompactionHookResult> {
    const started = await this.start(history, view, trigger, turn, focus);
    if (!('settled' in started)) return started;
    const waitMs = this.failures.failedInARow > 0 ? 0 : this.options.config.maxWaitMs;
    if (await settlesWithin(started.settled, waitMs))
      return (await this.settle(history, turn)) ?? { compacted: false, reason: 'the compaction was cancelled' };
    return {
      compacted: false,
      reason:
        `the summary call has not answered within ${waitMs} ms: the compaction goes on in the background and ` +
        `the next payload uses it once it is done`,
    };
  }

  /**
   * Saves the transcript and starts the summary call (retain + summary of everything before the last
   * `retainLastTurns` turns), without waiting for it: it is the running compaction until
   * {@link settle} takes its outcome in. What fails before the call changes nothing and is reported;
   * an automatic compaction with nothing to summarize but whose kept part passes the threshold does
   * not call the model. Every attempt arms the back-off.
   */
  private async start(
    history: ReadonlyArray<ChatMessage>,
    view: CompactionView,
    trigger: CompactionTrigger,
    turn: number,
    focus?: string,
  ): Promise<CompactionHookResult | RunningCompaction> {
    this.manualRequest = undefined;
    const { config, context, counter } = this.options;
    const base = this.options.eventBase(turn);
    if (!config.enabled) return { compacted: false, reason: 'compaction is disabled' };
    const llm = context.llm;
    // Without a model nothing can be summarized: the view is not built (nor every output cached) for nothing.
    if (!llm)
      return this.fail(new LLMNotConfiguredError(`${this.options.strategyId} compaction`), trigger, history, turn);
    const entries = repairToolPairs(await view.entries());
    const tokensBefore = this.sumTokens(entries);
    safeEmit(context.events, 'compaction-start', { ...base, trigger, tokensBefore });

    const { start: tailStart, tail, carried, replaced } = splitForCompaction(entries, config.retainLastTurns);
    const keptTokens = this.sumTokens(tail) + (carried ? counter.countMessage(carried.message) : 0);
    const keptMessages = tail.length + (carried ? 1 : 0);
    if (trigger === 'auto' && this.fixedTokens + keptTokens >= this.threshold && replaced.length === 0) {
      // Everything but an earlier summary is kept verbatim and that alone passes the threshold: a
      // summary could only add to it, so the model is not called.
      return this.fail(
        this.noProgress(keptMessages, keptTokens, 0, this.backoff.nextWait(false)),
        trigger,
        history,
        turn,
      );
    }

    let transcriptRef: string;
    try {
      transcriptRef = await saveTranscript(context.store, context, history, context.now());
    } catch (error) {
      return this.fail(error, trigger, history, turn);
    }
    const abort = new AbortController();
    const running: RunningCompaction = {
      trigger,
      turn,
      history: history.slice(),
      tail,
      carried,
      keptTokens,
      keptMessages,
      tokensBefore,
      transcriptRef,
      client: llm.name,
      abort,
      settled: Promise.resolve(),
      outcome: undefined,
    };
    // Built at each request: a payload composed meanwhile gives the fallback call its system prompt.
    const callOptions = () => ({
      llm,
      callerModel: this.options.model,
      config,
      systemPrompt: this.systemPrompt || undefined,
      focus,
      signal: abort.signal,
    });
    const cacheKey = conversationCacheKey(context.agentId, context.sessionId);
    const summarized = entries.slice(0, tailStart).map((entry) => entry.message);
    const call = (async () => {
      const provider = await this.tryProvider(summarized, { ...callOptions(), tools: this.tools, cacheKey }, running);
      if (provider.reply) return provider.reply;
      // With turns kept verbatim, whatever came after the conversation's last request is among them: the
      // request may go out as that one continued, reading its cached prompt.
      const continued = config.retainLastTurns >= 1 ? { cacheKey } : {};
      const reply = await compactMessages(this.summaryMessages(entries), { ...callOptions(), ...continued });
      this.engineUsed = { engine: 'ctxkit', fallback: provider.error ?? null };
      return reply;
    })();
    running.settled = call.then(
      (reply) => {
        running.outcome = { reply };
      },
      (error: unknown) => {
        running.outcome = { error, at: context.now() };
        // Reported when it fails (a cancelled compaction is not); the compactor takes the failure in at its next call.
        if (!abort.signal.aborted)
          safeEmit(context.events, 'compaction-error', { ...base, trigger, error: errorInfo(error) });
      },
    );
    this.running = running;
    return running;
  }

  /**
   * The provider's compaction of `summarized` (the view before the kept turns) when `compaction.engine`, the client
   * and the provider's back-off allow it; else why not. A failure is reported and arms that back-off, and the caller
   * asks ctxkit's summary call in the same attempt, so that the failed request is not waited for again.
   */
  private async tryProvider(
    summarized: ChatMessage[],
    options: ProviderCompactionOptions,
    { trigger, turn }: RunningCompaction,
  ): Promise<{ reply?: CompactMessagesResult; error?: { code: string; message: string } }> {
    const { config, llm } = options;
    const context = this.options.context;
    if (config.engine === 'ctxkit' || llm.providerCompaction === undefined)
      return config.engine === 'provider'
        ? { error: strategyError(`the client ${llm.name} has no provider compaction`) }
        : {};
    if (this.providerFailures.waiting(() => context.now())) {
      const until = new Date(this.providerFailures.retryAt!).toISOString();
      return { error: strategyError(`provider compaction is backing off after a failure until ${until}`) };
    }
    try {
      const reply = await compactWithProvider(summarized, options);
      this.providerFailures.succeeded();
      this.engineUsed = { engine: 'provider', fallback: null };
      return { reply };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      this.providerFailures.failed(context.now());
      const info = errorInfo(error);
      safeEmit(context.events, 'strategy-warning', {
        ...this.options.eventBase(turn),
        code: info.code,
        message:
          `The provider's compaction (${trigger}) failed (${info.message}); ctxkit's summary call writes ` +
          `this compaction instead.`,
      });
      return { error: info };
    }
  }

  /**
   * Takes in the outcome of the running compaction once its summary call has settled: a failure
   * (already reported) arms both back-offs, an answer is committed onto `history`. `undefined` while
   * none has settled.
   */
  private async settle(history: ReadonlyArray<ChatMessage>, turn: number): Promise<CompactionHookResult | undefined> {
    const running = this.running;
    if (!running?.outcome) return undefined;
    this.running = undefined;
    const { outcome } = running;
    if ('error' in outcome) {
      this.failures.failed(outcome.at);
      return this.fail(outcome.error, running.trigger, running.history, turn, false);
    }
    this.failures.succeeded();
    return this.commit(running, outcome.reply, history, turn);
  }

  /**
   * Replaces everything before the kept turns of `history` (the caller's history now, which continues
   * the one compacted) by the retain + summary. A result that does not shrink the history, or a
   * history that changed in what the summary replaces, changes nothing and is reported. A result
   * still over the threshold is kept (it did shrink the history) and reported as
   * `CTXKIT_COMPACTION_NO_PROGRESS`.
   */
  private async commit(
    running: RunningCompaction,
    reply: CompactionReply,
    history: ReadonlyArray<ChatMessage>,
    turn: number,
  ): Promise<CompactionHookResult> {
    const { config, context, counter } = this.options;
    const { trigger, tail, carried, tokensBefore, keptTokens, keptMessages, transcriptRef } = running;
    const base = this.options.eventBase(turn);
    const prefix: ChatMessage[] = [];
    if (reply.item) {
      // The provider's item opens the conversation, alone in its assistant message, as received.
      prefix.push({ role: 'assistant', content: null, reasoning: [structuredClone(reply.item)] });
    } else {
      if (reply.retain.trim() !== '') prefix.push({ role: 'user', content: reply.retain });
      prefix.push({ role: 'user', content: reply.summary });
    }
    if (carried) prefix.push({ ...(carried.message as UserMessage) });
    const tokensAfter = counter.countMessages(prefix) + this.sumTokens(tail);
    if (tokensAfter >= tokensBefore) {
      const message =
        `the compaction result (${tokensAfter} tokens) is not smaller than the history it replaces ` +
        `(${tokensBefore} tokens)`;
      const model = config.model ?? this.options.model;
      return this.fail(
        new LLMResponseError(message, { client: running.client, model }),
        trigger,
        running.history,
        turn,
      );
    }
    const firstKept = tail.find((entry) => entry.source !== null);
    const keepFrom = firstKept ? firstKept.source! : running.history.length;
    if (!continuesCovered(history, { covered: running.history, keepFrom })) {
      const message =
        'The history changed in what the compaction replaces while its summary was written; the summary was ' +
        'discarded and the history is used as given.';
      safeEmit(context.events, 'strategy-warning', { ...base, message });
      return { compacted: false, reason: message };
    }

    // Commit: from here on the caller's history maps onto prefix + kept turns.
    const before = this.snapshot();
    this.current = {
      prefix,
      keepFrom,
      covered: history.slice(0, keepFrom),
      transcriptRef,
      tokensBefore,
      tokensAfter,
      count: (this.current?.count ?? 0) + 1,
      ...(carried ? { carriedSource: carried.source! } : {}),
    };
    const reached = this.fixedTokens + tokensAfter < this.threshold;
    this.backoff.record(reached, {
      full: running.history.length,
      adopted: prefix.length + running.history.length - keepFrom,
    });
    const shortfall = reached
      ? undefined
      : this.noProgress(keptMessages, keptTokens, tokensAfter - keptTokens, this.backoff.waitTokens);
    this.lastError = shortfall ? failureOf(shortfall, trigger) : undefined;
    this.lastUsage = undefined;
    const compacted = [...prefix, ...history.slice(keepFrom)];
    if (this.options.outputs) await this.options.outputs.collect(compacted, reply, turn);
    await this.options.onCompacted?.({ before, state: this.current, trigger, turn });
    const end = { ...base, trigger, tokensBefore, tokensAfter, transcriptRef, messages: compacted };
    safeEmit(context.events, 'compaction-end', end);
    if (shortfall)
      safeEmit(context.events, 'strategy-warning', { ...base, message: shortfall.message, code: shortfall.code });
    return {
      compacted: true,
      messages: compacted,
      reason: `${trigger} compaction: ${tokensBefore} → ${tokensAfter} tokens; transcript ${transcriptRef}`,
    };
  }

  /**
   * Records a failed attempt made on the history `attempted` (`lastError`, the back-off), reported with
   * `compaction-error` unless it was when it happened.
   */
  private fail(
    error: unknown,
    trigger: CompactionTrigger,
    attempted: ReadonlyArray<ChatMessage>,
    turn: number,
    report = true,
  ): CompactionHookResult {
    const { code, message } = (this.lastError = failureOf(error, trigger));
    this.backoff.record(false, { full: attempted.length, adopted: attempted.length });
    if (report)
      safeEmit(this.options.context.events, 'compaction-error', {
        ...this.options.eventBase(turn),
        trigger,
        error: { code, message },
      });
    return { compacted: false, reason: message };
  }

  /** True while the wait after failed summary calls has not passed. */
  private backingOff(): boolean {
    return this.failures.waiting(() => this.options.context.now());
  }

  /** Why automatic compaction is not tried now, after failed summary calls. */
  private backingOffNote(): string {
    const failed = this.failures.failedInARow;
    const calls = failed === 1 ? 'summary call' : `${failed} summary calls`;
    return (
      `the last ${calls} failed (${this.lastError?.code ?? ErrorCodes.STRATEGY_ERROR}): compaction is backing ` +
      `off until ${new Date(this.failures.retryAt!).toISOString()}`
    );
  }

  /**
   * Records (`stats.extra.compaction.skipped`) and reports (`strategy-warning`) a payload composed without the
   * compaction due for it.
   */
  private skip(reason: SkippedCompaction['reason'], turn: number): false {
    const message =
      reason === 'running'
        ? `Composed without compaction: the summary call started at turn ${this.running!.turn} has not answered ` +
          `yet; it goes on in the background and the next payload uses it once it is done.`
        : `Composed without compaction: ${this.backingOffNote()}; the next payload after that tries again in the ` +
          `background.`;
    this.skipped = { reason, message, retryAt: this.failures.retryAt };
    const code = reason === 'backing-off' ? this.lastError?.code : undefined;
    safeEmit(this.options.context.events, 'strategy-warning', {
      ...this.options.eventBase(turn),
      message,
      ...(code ? { code } : {}),
    });
    return false;
  }

  /** Aborts the running compaction (its outcome is then ignored). */
  private cancelRunning(reason: string): void {
    this.running?.abort.abort(new Error(reason));
    this.running = undefined;
  }

  /** The error of a compaction that cannot bring the context under its threshold, naming what it cannot remove. */
  private noProgress(
    keptMessages: number,
    keptTokens: number,
    summaryTokens: number,
    retryAfterTokens: number,
  ): CompactionNoProgressError {
    const { config, strategyId } = this.options;
    const parts = [
      {
        part:
          `the last ${config.retainLastTurns} turn${config.retainLastTurns === 1 ? '' : 's'} kept verbatim ` +
          `(compaction.retainLastTurns)`,
        messages: keptMessages,
        tokens: keptTokens,
      },
      { part: 'the system prompt, tool definitions and dynamic context', tokens: this.fixedTokens },
    ];
    if (summaryTokens > 0) parts.push({ part: 'the retain + summary the model wrote', tokens: summaryTokens });
    return new CompactionNoProgressError(strategyId, { thresholdTokens: this.threshold, parts, retryAfterTokens });
  }

  /**
   * The summary call's messages: the view, oldest units left out (they are in the transcript) until it fits the summary
   * model.
   */
  private summaryMessages(entries: ReadonlyArray<ViewEntry>): ChatMessage[] {
    const { config, context } = this.options;
    const summaryModel = config.model;
    const limit = summaryModel ? context.models.get(summaryModel).contextWindow : this.options.contextLimit;
    const counter = summaryModel ? context.counterFor(summaryModel) : this.options.counter;
    const available = Math.floor(limit * 0.9) - config.maxSummaryTokens - counter.count(this.systemPrompt) - 1024;
    return summaryInput(entries, available, counter);
  }

  private sumTokens(entries: ReadonlyArray<ViewEntry>): number {
    return this.options.counter.countMessages(entries.map((entry) => entry.message));
  }
}

function withCommas(count: number): string {
  return count.toLocaleString('en-US');
}

function strategyError(message: string): { code: string; message: string } {
  return { code: ErrorCodes.STRATEGY_ERROR, message };
}

function failureOf(error: unknown, trigger: CompactionTrigger): CompactionFailure {
  const details = CompactionNoProgressError.isInstance(error) ? { details: error.details } : {};
  return { ...errorInfo(error), trigger, ...details };
}

/** The code and message an error is reported with. */
function errorInfo(error: unknown): { code: string; message: string } {
  return {
    code: CtxkitError.isInstance(error) ? error.code : ErrorCodes.STRATEGY_ERROR,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** True when `settled` resolves within `ms` (0: only what is already settling, such as an answer already there). */
function settlesWithin(settled: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([settled.then(() => true), expired]).finally(() => clearTimeout(timer));
}
