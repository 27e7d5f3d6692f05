import {
  type ChatMessage,
  type CompactionHookResult,
  CompactionNoProgressError,
  conversationCacheKey,
  CtxkitError,
  ErrorCodes,
  LLMNotConfiguredError,
  LLMResponseError,
  type PreviewItem,
  type StrategyContext,
  type TokenUsage,
  type ToolDefinition,
  type UserMessage,
} from '@ctxkit/core';
import {
  FailureBackoff,
  groupAt,
  LARGE_MESSAGE_CHARS,
  messageText,
  previewItem,
  type StrategyFoundation,
} from '@ctxkit/core/strategy-kit';

import { type CachedOutputs, errorText } from '../cache/cached-outputs';
import type { StrategyEmit } from '../tool-output-cache-strategy';
import type { CompactionConfig } from '../tool-output-cache-strategy-config';
import type { WorkingView } from '../view/working-view';
import {
  compactMessages,
  type CompactMessagesResult,
  compactWithProvider,
  type ProviderCompactionOptions,
} from './compact-messages';
import { type BackoffSnapshot, CompactionBackoff } from './compaction-backoff';
import {
  type CompactionState,
  continuesCovered,
  type HistoryLayout,
  layoutHistory,
  NO_COMPACTION_LAYOUT,
  type SavedCompactionState,
  startsWithPrefix,
  type ViewEntry,
} from './history-layout';
import { splitForCompaction } from './tail-turns';
import { readTranscript, saveTranscript } from './transcript';

export type CompactionTrigger = 'auto' | 'manual' | 'budget';

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

/** Whether the next payload or checkpoint would compact, and a line saying why, or why automatic compaction waits. */
interface CompactionPlan {
  trigger?: CompactionTrigger;
  note?: string;
}

/** Why a payload was composed without the compaction due for it (`stats.extra.compaction.skipped`). */
export interface SkippedCompaction {
  /** `running`: its call has not answered; `backing-off`: waiting after a failed call; `failed`: this one failed. */
  reason: 'running' | 'backing-off' | 'failed';
  message: string;
  /** When automatic compaction may be tried again after failed summary calls (ms since epoch), else `null`. */
  retryAt: number | null;
}

/** A compaction whose summary call was started. */
interface RunningCompaction {
  trigger: CompactionTrigger;
  turn: number;
  /** A copy of the caller's history it compacts. */
  history: ChatMessage[];
  /** The view's entries kept after the summary, and the user message carried right after it. */
  tail: ViewEntry[];
  carried: ViewEntry | undefined;
  keptTokens: number;
  tokensBefore: number;
  transcriptRef: string;
  client: string;
  abort: AbortController;
  /** Resolves, never rejects, once the call has answered or failed: `outcome` is then set. */
  settled: Promise<void>;
  outcome?: { reply: CompactMessagesResult } | { error: unknown; at: number };
}

/**
 * The compaction of one session: when to compact, the compaction (transcript saved, retain + summary written, the last
 * turns kept) and the state mapping every later history onto it. Failures are reported, change nothing, never throw.
 * A caller waits for a summary call at most `maxWaitMs`, then it goes on in the background. After a failed call
 * automatic compaction backs off and is not waited for, so that a model that is down holds a payload back at most once.
 */
export class Compactor {
  private current: CompactionState | undefined;
  private readonly backoff: CompactionBackoff;
  private lastUsage: TokenUsage | undefined;
  private manualRequest: { focus: string | undefined } | undefined;
  /** The last failure (`stats.extra.compaction.lastError`). */
  private lastError: ReturnType<typeof failureOf> | undefined;
  /** The compaction whose summary call is not taken in yet. */
  private running: RunningCompaction | undefined;
  private readonly failures: FailureBackoff;
  /** The wait after failed provider compactions: meanwhile ctxkit's summary call writes them. */
  private readonly providerFailures: FailureBackoff;
  private skipped: SkippedCompaction | undefined;
  /** Where the last growth check stopped and what it still needed: the next one counts only what was appended. */
  private growth:
    { anchor: number; wait: number; first: unknown; last: unknown; end: number; needed: number } | undefined;
  /** The latest payload's system prompt, sent first in the summary call. */
  systemPrompt = '';
  /** Tokens of the latest payload's system prompt, tools and dynamic context: what a compaction never removes. */
  fixedTokens = 0;
  /** The latest payload's tools, sent with a provider compaction request as the turns sent them. */
  tools: ReadonlyArray<ToolDefinition> = [];
  private readonly threshold: number;
  /** Who wrote the last summary, and why the provider did not when it fell back. */
  private engineUsed: { engine: 'provider' | 'ctxkit'; fallback: { code: string; message: string } | null } | undefined;

  constructor(
    private readonly config: CompactionConfig,
    /** Its model writes the summary when `config.model` is `null`. */
    private readonly foundation: Pick<StrategyFoundation, 'strategyId' | 'model' | 'counter'>,
    private readonly context: StrategyContext,
    /** The context limit the threshold is a share of. */
    private readonly contextLimit: number,
    /** The cached outputs, collected after a compaction; `undefined` while the cache is off. */
    private readonly outputs: CachedOutputs | undefined,
    private readonly emit: StrategyEmit,
    /** Called once a compaction has replaced the history, before `compaction-end`, to keep it as an epoch. */
    private readonly onCompacted: (done: CompactionDone) => Promise<void>,
  ) {
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

  get state(): Readonly<CompactionState> | undefined {
    return this.current;
  }

  /** Asks for a compaction at the next hook or payload (the `compact` tool). */
  request(focus: string | undefined): void {
    this.manualRequest = { focus };
  }

  /**
   * Syncs `view` with `history` as it maps onto the compaction; a history that no longer continues the compaction sets
   * it aside, with a warning.
   */
  sync(history: ReadonlyArray<ChatMessage>, view: WorkingView, turn: number): WorkingView {
    const layout = layoutHistory(history, this.current);
    if (layout) return view.sync(history, layout, turn);
    this.current = undefined;
    this.backoff.reset();
    this.cancelRunning('the history no longer continues the compacted conversation');
    this.emit('strategy-warning', turn, {
      message:
        'The history no longer continues the compacted conversation; the compaction was set aside and the history ' +
        'is used as given.',
    });
    return view.sync(history, NO_COMPACTION_LAYOUT, turn);
  }

  /** Whether the next payload or checkpoint would compact `history`, decided as they decide but changing nothing. */
  private async plan(
    history: ReadonlyArray<ChatMessage>,
    view: WorkingView,
    fixedTokens: number,
  ): Promise<CompactionPlan> {
    const config = this.config;
    if (!config.enabled) return {};
    if (this.running)
      return {
        note: this.running.outcome
          ? 'a compaction finished in the background: the next payload or checkpoint takes it in'
          : 'a compaction runs in the background: the next payload uses it once it is done',
      };
    if (this.manualRequest) return { trigger: 'manual', note: 'a compact request is pending' };
    if (!config.auto) return {};
    const waiting = this.growthStillNeeded(history, view.currentLayout);
    const more = waiting.toLocaleString('en-US');
    if (waiting > 0) return { note: `automatic compaction waits until the history grows by ${more} more tokens` };
    let passing: string;
    if (this.lastUsage && this.lastUsage.total_tokens >= this.threshold) {
      passing = `the last reported usage (${this.lastUsage.total_tokens.toLocaleString('en-US')} tokens)`;
    } else {
      const needed = this.threshold - fixedTokens;
      const tokens = await view.tokensUpTo(needed);
      if (tokens < needed) return {};
      passing = `the context (at least ${(fixedTokens + tokens).toLocaleString('en-US')} tokens)`;
    }
    const note = `${passing} passes the threshold (${this.threshold.toLocaleString('en-US')})`;
    if (this.backingOff()) return { note: `${note}, but ${this.backingOffNote()}` };
    return { trigger: 'auto', note };
  }

  /**
   * A preview's compaction part, changing nothing but `view` (a fork, synced with `history` as the next call will): the
   * messages the compaction the next payload or checkpoint would start replaces; notes on the compaction set aside,
   * what the next one would do, or why it waits.
   */
  async preview(
    history: ReadonlyArray<ChatMessage>,
    view: WorkingView,
    turn: number,
    fixedTokens: number,
  ): Promise<{ compacted: PreviewItem[]; notes: string[] }> {
    const layout = layoutHistory(history, this.current);
    view.sync(history, layout ?? NO_COMPACTION_LAYOUT, turn);
    const plan = await this.plan(history, view, fixedTokens);
    const hasModel = Boolean(this.context.llm);
    const { replaced } =
      plan.trigger && hasModel
        ? splitForCompaction(await view.entries(), this.config.retainLastTurns)
        : { replaced: [] };
    const compacted = replaced.map((entry) => previewItem(history, entry.source!, this.foundation.counter));
    const notes: string[] = [];
    if (!layout)
      notes.push(
        'the history no longer continues the compacted conversation: the next payload sets the compaction aside and ' +
          'uses the history as given',
      );
    if (plan.trigger) {
      const what =
        compacted.length > 0
          ? `replacing ${compacted.length.toLocaleString('en-US')} messages by retain + summary`
          : 'but nothing older than the turns it keeps would be replaced';
      const model = hasModel ? '' : '; no model is configured, so it would fail and change nothing';
      notes.push(
        `the next payload or checkpoint would compact (${plan.trigger}: ${plan.note}), ${what}${model}; what follows ` +
          `is the payload before it`,
      );
    } else if (plan.note) notes.push(plan.note);
    return { compacted, notes };
  }

  snapshot(): CompactorSnapshot {
    const backoff = this.backoff.snapshot();
    if (!this.current) return { state: null, backoff };
    const { covered: _covered, ...saved } = this.current;
    return { state: { ...saved, prefix: saved.prefix.map((message) => ({ ...message })) }, backoff };
  }

  /**
   * Undoes a compaction: puts back what the compactor knew before it and returns its transcript (the history to go on
   * with). The undo counts as a refused attempt, so that the next checkpoint does not compact it again.
   * @throws TranscriptMissingError (`CTXKIT_STORE_ERROR`) when the transcript is gone; nothing is restored then
   */
  async undo(saved: { transcriptRef: string; compactor: CompactorSnapshot }): Promise<ChatMessage[]> {
    const { context } = this;
    const history = await readTranscript(context.store, context, saved.transcriptRef);
    const previous = saved.compactor.state;
    // What the restored compaction replaced: the start of this history, or of its own transcript once adopted.
    let covered: ChatMessage[] = [];
    if (previous && !startsWithPrefix(history, previous.prefix)) covered = history.slice(0, previous.keepFrom);
    else if (previous)
      covered = await readTranscript(context.store, context, previous.transcriptRef).then(
        (transcript) => transcript.slice(0, previous.keepFrom),
        // Without it only the adopted form maps onto the compaction; a full history sets it aside.
        () => [],
      );
    this.cancelRunning('the compaction was undone');
    this.current = previous
      ? { ...previous, prefix: previous.prefix.map((message) => ({ ...message })), covered }
      : undefined;
    this.backoff.restore(saved.compactor.backoff);
    this.backoff.record(false, { full: history.length, adopted: history.length });
    this.manualRequest = undefined;
    this.lastUsage = undefined;
    this.lastError = undefined;
    return history;
  }

  /** The compaction hook: takes in a finished compaction, else runs a request, or one due by the last usage. */
  async check(
    history: ReadonlyArray<ChatMessage>,
    usage: TokenUsage | undefined,
    turn: number,
    /** The working view, synced with `history` here only when a compaction may run. */
    view: WorkingView,
  ): Promise<CompactionHookResult> {
    if (usage) this.lastUsage = usage;
    const finished = await this.settle(history, turn);
    if (finished?.compacted) return finished;
    if (this.running)
      return notCompacted(
        'a compaction runs in the background: the next payload or checkpoint uses it once it is done',
      );
    if (this.manualRequest) return this.attempt(history, this.sync(history, view, turn), 'manual', turn);
    const config = this.config;
    if (!config.enabled || !config.auto) return notCompacted('automatic compaction is off');
    if (!this.lastUsage) return notCompacted('no usage reported yet');
    if (!(this.lastUsage.total_tokens >= this.threshold)) return notCompacted('below the compaction threshold');
    const synced = this.sync(history, view, turn);
    const waiting = this.growthStillNeeded(history, synced.currentLayout);
    if (waiting > 0) return notCompacted(`anti-loop guard: waiting until the history grows by ${waiting} more tokens`);
    if (this.backingOff()) return notCompacted(this.backingOffNote());
    return this.attempt(history, synced, 'auto', turn);
  }

  /**
   * Before a payload, as {@link check} but measured on `fixedTokens` + the view; true when it compacted. A payload
   * composed without the compaction due for it says why in `skipped` and an event.
   */
  async compactIfDue(history: ReadonlyArray<ChatMessage>, view: WorkingView, turn: number): Promise<boolean> {
    this.skipped = undefined;
    const config = this.config;
    if (!config.enabled) return false;
    if ((await this.settle(history, turn))?.compacted) return true;
    if (this.running) return this.skip('running', turn);
    let result: CompactionHookResult;
    if (this.manualRequest) result = await this.attempt(history, view, 'manual', turn);
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
    const message = `Composed without compaction: ${result.reason}`;
    this.skipped = { reason: 'failed', message, retryAt: this.failures.retryAt };
    return false;
  }

  dispose(): void {
    this.cancelRunning('the strategy was disposed');
  }

  /** The compaction part of `stats.extra`. */
  stats(): Record<string, unknown> {
    const { config, contextLimit } = this;
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

  /** Tokens the history must still grow by before the next automatic attempt (0: it may run). */
  private growthStillNeeded(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout): number {
    const anchor = this.backoff.anchorFor(layout.form);
    if (anchor === undefined) return 0;
    const counter = this.foundation.counter;
    const wait = this.backoff.waitTokens;
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

  /** Saves the transcript, starts the summary call and waits for it (see `maxWaitMs`) until {@link settle} takes it. */
  private async attempt(
    history: ReadonlyArray<ChatMessage>,
    view: WorkingView,
    trigger: CompactionTrigger,
    turn: number,
  ): Promise<CompactionHookResult> {
    const focus = this.manualRequest?.focus;
    this.manualRequest = undefined;
    const { config, context } = this;
    const { counter } = this.foundation;
    if (!config.enabled) return notCompacted('compaction is disabled');
    const llm = context.llm;
    // Without a model nothing can be summarized: the view is not built (nor every output cached) for nothing.
    if (!llm)
      return this.fail(new LLMNotConfiguredError(`${this.foundation.strategyId} compaction`), trigger, history, turn);
    const { entries, start, tail, carried, replaced } = splitForCompaction(
      await view.entries(),
      config.retainLastTurns,
    );
    const tokensBefore = this.sumTokens(entries);
    this.emit('compaction-start', turn, { trigger, tokensBefore });
    const keptTokens = this.sumTokens(tail) + (carried ? counter.countMessage(carried.message) : 0);
    if (trigger === 'auto' && this.fixedTokens + keptTokens >= this.threshold && replaced.length === 0) {
      // Only kept messages and an earlier summary are left and pass the threshold: a summary could only add to them.
      const error = this.noProgress({ tail, carried, keptTokens }, 0, this.backoff.nextWait(false));
      return this.fail(error, trigger, history, turn);
    }
    let transcriptRef: string;
    try {
      transcriptRef = await saveTranscript(context.store, context, history, context.now());
    } catch (error) {
      return this.fail(error, trigger, history, turn);
    }
    const abort = new AbortController();
    // Built at each request: a payload composed meanwhile gives the fallback call its system prompt.
    const options = () => ({
      llm,
      callerModel: this.foundation.model,
      config,
      systemPrompt: this.systemPrompt || undefined,
      focus,
      signal: abort.signal,
    });
    const cacheKey = conversationCacheKey(context.agentId, context.sessionId);
    const summarized = entries.slice(0, start).map((entry) => entry.message);
    const call = (async () => {
      const provider = await this.tryProvider(summarized, { ...options(), tools: this.tools, cacheKey }, trigger, turn);
      if (provider.reply) return provider.reply;
      // With turns kept, what came after the last request is among them: this one may continue it, reading its cache.
      const continued = config.retainLastTurns >= 1 ? { cacheKey } : {};
      const reply = await compactMessages(this.summaryMessages(entries), { ...options(), ...continued });
      this.engineUsed = { engine: 'ctxkit', fallback: provider.error ?? null };
      return reply;
    })();
    const running: RunningCompaction = {
      trigger,
      turn,
      history: history.slice(),
      tail,
      carried,
      keptTokens,
      tokensBefore,
      transcriptRef,
      client: llm.name,
      abort,
      settled: call.then(
        (reply) => {
          running.outcome = { reply };
        },
        (error: unknown) => {
          running.outcome = { error, at: context.now() };
          // A cancelled compaction is not reported; the failure is taken in at the next call.
          if (!abort.signal.aborted) this.emit('compaction-error', turn, { trigger, error: errorInfo(error) });
        },
      ),
    };
    this.running = running;
    const waitMs = this.failures.failedInARow > 0 ? 0 : config.maxWaitMs;
    if (await settlesWithin(running.settled, waitMs))
      return (await this.settle(history, turn)) ?? notCompacted('the compaction was cancelled');
    return notCompacted(
      `the summary call has not answered within ${waitMs} ms: the compaction goes on in the background and ` +
        `the next payload uses it once it is done`,
    );
  }

  /** The provider's compaction when the engine, the client and its back-off allow it, else why not. */
  private async tryProvider(
    summarized: ChatMessage[],
    options: ProviderCompactionOptions,
    trigger: CompactionTrigger,
    turn: number,
  ): Promise<{ reply?: CompactMessagesResult; error?: { code: string; message: string } }> {
    const { config, llm } = options;
    const context = this.context;
    const code = ErrorCodes.STRATEGY_ERROR;
    if (config.engine === 'ctxkit' || llm.providerCompaction === undefined)
      return config.engine === 'provider'
        ? { error: { code, message: `the client ${llm.name} has no provider compaction` } }
        : {};
    if (this.providerFailures.waiting(() => context.now())) {
      const until = new Date(this.providerFailures.retryAt!).toISOString();
      return { error: { code, message: `provider compaction is backing off after a failure until ${until}` } };
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
      this.emit('strategy-warning', turn, {
        code: info.code,
        message:
          `The provider's compaction (${trigger}) failed (${info.message}); ctxkit's summary call writes ` +
          `this compaction instead.`,
      });
      return { error: info };
    }
  }

  /**
   * Takes in the running compaction once settled: its answer replaces what precedes the kept turns unless it does not
   * shrink it or that part changed meanwhile; one still over the threshold is kept, reported as no progress.
   */
  private async settle(history: ReadonlyArray<ChatMessage>, turn: number): Promise<CompactionHookResult | undefined> {
    const running = this.running;
    if (!running?.outcome) return undefined;
    this.running = undefined;
    const { outcome, trigger, tail, carried, tokensBefore, keptTokens, transcriptRef } = running;
    if ('error' in outcome) {
      this.failures.failed(outcome.at);
      return this.fail(outcome.error, trigger, running.history, turn, false);
    }
    this.failures.succeeded();
    const { reply } = outcome;
    const { config } = this;
    const { counter } = this.foundation;
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
      const error = new LLMResponseError(message, {
        client: running.client,
        model: config.model ?? this.foundation.model,
      });
      return this.fail(error, trigger, running.history, turn);
    }
    const keepFrom = tail.find((entry) => entry.source !== null)?.source ?? running.history.length;
    if (!continuesCovered(history, { covered: running.history, keepFrom })) {
      const message =
        'The history changed in what the compaction replaces while its summary was written; the summary was ' +
        'discarded and the history is used as given.';
      this.emit('strategy-warning', turn, { message });
      return notCompacted(message);
    }
    // From here on the caller's history maps onto prefix + kept turns.
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
    const shortfall = reached ? undefined : this.noProgress(running, tokensAfter - keptTokens, this.backoff.waitTokens);
    this.lastError = shortfall ? failureOf(shortfall, trigger) : undefined;
    this.lastUsage = undefined;
    const compacted = [...prefix, ...history.slice(keepFrom)];
    if (this.outputs) await this.outputs.collect(compacted, reply, turn);
    await this.onCompacted({ before, state: this.current, trigger, turn });
    this.emit('compaction-end', turn, { trigger, tokensBefore, tokensAfter, transcriptRef, messages: compacted });
    if (shortfall) this.emit('strategy-warning', turn, { message: shortfall.message, code: shortfall.code });
    return {
      compacted: true,
      messages: compacted,
      reason: `${trigger} compaction: ${tokensBefore} → ${tokensAfter} tokens; transcript ${transcriptRef}`,
    };
  }

  /** Records a failed attempt on the history `attempted`. */
  private fail(
    error: unknown,
    trigger: CompactionTrigger,
    attempted: ReadonlyArray<ChatMessage>,
    turn: number,
    report = true,
  ): CompactionHookResult {
    const { code, message } = (this.lastError = failureOf(error, trigger));
    this.backoff.record(false, { full: attempted.length, adopted: attempted.length });
    if (report) this.emit('compaction-error', turn, { trigger, error: { code, message } });
    return notCompacted(message);
  }

  private backingOff(): boolean {
    return this.failures.waiting(() => this.context.now());
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

  /** Records and reports a payload composed without the compaction due for it. */
  private skip(reason: SkippedCompaction['reason'], turn: number): false {
    const message =
      reason === 'running'
        ? `Composed without compaction: the summary call started at turn ${this.running!.turn} has not answered ` +
          `yet; it goes on in the background and the next payload uses it once it is done.`
        : `Composed without compaction: ${this.backingOffNote()}; the next payload after that tries again in the ` +
          `background.`;
    this.skipped = { reason, message, retryAt: this.failures.retryAt };
    const code = reason === 'backing-off' ? this.lastError?.code : undefined;
    this.emit('strategy-warning', turn, { message, ...(code ? { code } : {}) });
    return false;
  }

  private cancelRunning(reason: string): void {
    this.running?.abort.abort(new Error(reason));
    this.running = undefined;
  }

  /** The error of a compaction that cannot bring the context under its threshold, naming what it cannot remove. */
  private noProgress(
    { tail, carried, keptTokens }: Pick<RunningCompaction, 'tail' | 'carried' | 'keptTokens'>,
    summaryTokens: number,
    retryAfterTokens: number,
  ): CompactionNoProgressError {
    const { config } = this;
    const { strategyId } = this.foundation;
    const parts = [
      {
        part:
          `the last ${config.retainLastTurns} turn${config.retainLastTurns === 1 ? '' : 's'} kept verbatim ` +
          `(compaction.retainLastTurns)`,
        messages: tail.length + (carried ? 1 : 0),
        tokens: keptTokens,
      },
      { part: 'the system prompt, tool definitions and dynamic context', tokens: this.fixedTokens },
    ];
    if (summaryTokens > 0) parts.push({ part: 'the retain + summary the model wrote', tokens: summaryTokens });
    return new CompactionNoProgressError(strategyId, { thresholdTokens: this.threshold, parts, retryAfterTokens });
  }

  /**
   * The view, its oldest tool-call units left out (the transcript has them) until it fits the summary model; an
   * earlier compaction's retain + summary stays first.
   */
  private summaryMessages(entries: ReadonlyArray<ViewEntry>): ChatMessage[] {
    const { config, context } = this;
    const limit = config.model ? context.models.get(config.model).contextWindow : this.contextLimit;
    const counter = config.model ? context.counterFor(config.model) : this.foundation.counter;
    const available = Math.floor(limit * 0.9) - config.maxSummaryTokens - counter.count(this.systemPrompt) - 1024;
    const messages = entries.map((entry) => entry.message);
    let start = 0;
    while (start < entries.length && entries[start]!.source === null) start++;
    let total = counter.countMessages(messages);
    let cut = start;
    while (total > available && cut < messages.length - 1) {
      const group = groupAt(messages, cut);
      for (let index = cut; index < group.end; index++) total -= counter.countMessage(messages[index]!);
      cut = group.end;
    }
    return [...messages.slice(0, start), ...messages.slice(cut)];
  }

  private sumTokens(entries: ReadonlyArray<ViewEntry>): number {
    return this.foundation.counter.countMessages(entries.map((entry) => entry.message));
  }
}

function notCompacted(reason: string): CompactionHookResult {
  return { compacted: false, reason };
}

function failureOf(error: unknown, trigger: CompactionTrigger) {
  const details = CompactionNoProgressError.isInstance(error) ? { details: error.details } : {};
  return { ...errorInfo(error), trigger, ...details };
}

function errorInfo(error: unknown): { code: string; message: string } {
  return {
    code: CtxkitError.isInstance(error) ? error.code : ErrorCodes.STRATEGY_ERROR,
    message: errorText(error),
  };
}

/** True when `settled` resolves within `ms` (0: only when it is already settling). */
function settlesWithin(settled: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([settled.then(() => true), expired]).finally(() => clearTimeout(timer));
}
