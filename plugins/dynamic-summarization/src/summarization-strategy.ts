import {
  type ChatMessage,
  type ComposeOptions,
  ErrorCodes,
  type IContextManager,
  LLMNotConfiguredError,
  type LLMPayload,
  providerCacheTtlMs,
  type ReductionEpoch,
  type ReductionPreview,
  safeEmit,
  type StrategyContext,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import {
  type ComposedPayload,
  type MemoryBlock,
  payloadPreview,
  previewItems,
  RecallLayer,
  SerialQueue,
  StrategyFoundation,
} from '@ctxkit/core/strategy-kit';

import { FoldEpochs } from './fold/fold-epochs';
import { FoldScheduler } from './fold/fold-scheduler';
import { LLMSummarizer } from './llm/llm-summarizer';
import { ProviderCompactionSummarizer } from './llm/provider-compaction-summarizer';
import { DEFAULT_SUMMARY_PROMPT } from './llm/summary-prompt';
import { OfflineSummarizer } from './offline/offline-summarizer';
import { SUMMARIZATION_STRATEGY_ID } from './strategy-id';
import type { SummarizationConfig } from './summarization-config';
import type { Summarizer } from './summarizer';
import { summaryMemoryBlock } from './summary-block';
import type { SummaryState } from './summary-state';

/** How long before the provider's prompt cache expires an `auto` idle fold starts (time for the fold itself). */
const IDLE_FOLD_MARGIN_MS = 30_000;

/** Options of {@link SummarizationStrategy} besides config and context (tests, custom summarizers). */
export interface SummarizationStrategyOptions {
  /** Replaces the summarizer chosen from `config.summarizer` and `context.llm`. */
  summarizer?: Summarizer;
}

/** What one composition produced, before events are emitted. */
interface Composition {
  payload: LLMPayload;
  /** The layout, not committed yet (`composePayload` commits the one it sends). */
  composed: ComposedPayload;
  /** Unsummarized history had to be dropped while a summary was running. */
  wouldWait: boolean;
  turn: number;
  /** The room it left memory and history, and the summary's share of it. */
  room: { room: number; allowance: number };
  /** Why the summary read last was not used (it no longer matches the start of the history). */
  staleSummary: boolean;
  /** The summary covers more messages than the history has (a late request): left out, and kept. */
  summaryAhead: boolean;
}

/**
 * `std-summarization-strategy` (the recommended strategy): a summary buffer
 * per agent and session, kept in the store. When unsummarized history passes `threshold` turns, a
 * background task folds the oldest `batchTurns` whole turns and the current summary into a new
 * summary; those turns then leave the payload. The payload is the system prompt, the summary block,
 * the dynamic context, then the newest history that fits, composed by core's `PayloadComposer`; the
 * folds are scheduled by a {@link FoldScheduler}.
 *
 * Failure semantics: an attempt that errors, times out, answers empty or without `<summary>`, or
 * returns a summary over the cap or larger than what it replaces, changes nothing (the turns stay
 * verbatim), emits `summary-error` and backs off; at most one attempt per turn, and after
 * `maxConsecutiveFailures` no more attempts until the turns to fold change.
 *
 * Every committed fold is an undoable epoch (`epochs()`, `undo(id)`: the summary from before it is
 * written back); `preview(...)` tells what the next payload would leave out and what the next fold
 * would fold, without doing either.
 *
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) from composePayload when system prompt,
 *   tools and dynamic context alone exceed the budget
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) from composePayload, preview and onTurnComplete for a
 *   message that is not an object with a known role and a valid shape
 * @throws DisposedError (`CTXKIT_DISPOSED`) after dispose()
 * @see docs/strategies/dynamic-summarization.md
 */
export class SummarizationStrategy implements IContextManager {
  readonly summarizer: Summarizer;
  /** Counter, budget, composer (its ledger counts only new messages per turn), turns and disposal. */
  private readonly base: StrategyFoundation;
  /** Serialises compositions, turn completions and commits of one session. */
  private readonly queue = new SerialQueue();
  private readonly scheduler: FoldScheduler;
  /** The session's committed folds, kept as undoable epochs in the store. */
  private readonly foldEpochs: FoldEpochs;
  /** The session's turn at the last composition or turn completion (names the turn of an undo's event). */
  private turn = 0;
  /** The summary block of the current summary, built once per summary rather than once per turn. */
  private summaryBlock: { state: SummaryState; block: MemoryBlock } | undefined;
  /** Earlier turns recalled beside the summary (`config.recall`); undefined without recall. */
  private readonly recall: RecallLayer | undefined;
  /** The idle fold armed at the last turn end (`config.idleCompaction`), until the next request. */
  private idleFold: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: SummarizationConfig,
    private readonly context: StrategyContext,
    options: SummarizationStrategyOptions = {},
  ) {
    this.base = new StrategyFoundation(context, {
      strategyId: SUMMARIZATION_STRATEGY_ID,
      model: config.model,
      budget: config,
    });
    // Strict registry: an unknown model is an error unless the ceiling is given explicitly.
    const { available } = this.base.budget();
    this.summarizer = options.summarizer ?? this.chooseSummarizer();
    this.foldEpochs = new FoldEpochs(context);
    this.recall = config.recall
      ? new RecallLayer({ context, config: config.recall, counter: this.base.counter })
      : undefined;
    this.scheduler = new FoldScheduler({
      config,
      context,
      counter: this.base.counter,
      summarizer: this.summarizer,
      ledger: this.base.composer.ledger,
      available,
      queue: this.queue,
      onFolded: (fold) => this.foldEpochs.recordFold(fold),
    });
  }

  private chooseSummarizer(): Summarizer {
    const { config, context } = this;
    if (config.summarizer === 'offline' || (config.summarizer === 'auto' && context.llm === undefined))
      return new OfflineSummarizer();
    if (context.llm === undefined) throw new LLMNotConfiguredError(`${SUMMARIZATION_STRATEGY_ID} (summarizer: "llm")`);
    const model = config.compressionModel ?? context.model;
    const script = config.summaryScript === 'auto' ? {} : { script: config.summaryScript };
    const summarizer = new LLMSummarizer(context.llm, {
      model,
      summaryPrompt: config.summaryPrompt,
      checkSummaries: config.checkSummaries,
      ...script,
      maxInputTokens: config.summaryInputMaxTokens,
      timeoutMs: config.summaryTimeoutMs,
    });
    // Only a compaction whose summary is readable can be the summary text (Anthropic's; OpenAI's is encrypted).
    if (config.engine === 'ctxkit' || context.llm.providerCompaction !== 'anthropic') return summarizer;
    return new ProviderCompactionSummarizer(context.llm, summarizer, {
      model,
      prompt: config.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT,
      checkSummaries: config.checkSummaries,
      ...script,
      timeoutMs: config.summaryTimeoutMs,
    });
  }

  /** Who writes the summaries and why the provider did not (`stats.extra.summaryEngine`). */
  private engineStats(): Record<string, unknown> {
    const engine = this.config.engine;
    if (this.summarizer instanceof ProviderCompactionSummarizer)
      return { engine, lastEngine: this.summarizer.lastEngine ?? null, providerFallback: this.summarizer.lastFallback };
    const why =
      engine === 'provider' && !this.summarizer.offline
        ? {
            code: ErrorCodes.STRATEGY_ERROR,
            message:
              `the client ${this.context.llm?.name ?? '(none)'} has no readable provider compaction: ` +
              `summaries are written by the summary request`,
          }
        : null;
    return { engine, lastEngine: this.summarizer.offline ? null : 'ctxkit', providerFallback: why };
  }

  // ---------------------------------------------------------------- public surface

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<LLMPayload> {
    this.base.assertLive('composePayload');
    this.cancelIdleFold();
    let composition = await this.queue.run(() => this.compose(systemPrompt, history, tools, ragContext, options));
    if (composition.wouldWait && this.scheduler.waitable && this.config.summaryWaitMs > 0) {
      // The budget leaves no other way: wait (bounded, once per fold, never for a retry) for the running fold, then
      // compose again.
      await this.scheduler.waitForFold(this.config.summaryWaitMs);
      composition = await this.queue.run(() => this.compose(systemPrompt, history, tools, ragContext, options));
    }
    // The layout sent is the one committed (after a wait, the second: the first was never sent).
    this.recall?.committed(this.base.composer, composition.composed, composition.turn);
    this.base.composer.commit(composition.composed, composition.turn);
    return composition.payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.base.assertLive('onTurnComplete');
    this.cancelIdleFold();
    await this.queue.run(async () => {
      this.turn = this.base.turns.count(newHistory);
      if (!(await this.scheduler.load())) return;
      this.scheduler.resyncIfStale(newHistory);
      this.scheduler.maybeStartFold(newHistory);
    });
    await this.recall?.onTurnComplete(newHistory);
    this.armIdleFold(newHistory);
  }

  /**
   * After a turn ends, waits `idleCompaction` for the next request; if none comes, folds the oldest
   * batch then (even below the threshold), so that the request that finds the prompt cache expired
   * anyway carries the smaller payload. Once per idle period: the next request or turn end disarms it.
   */
  private armIdleFold(history: ReadonlyArray<ChatMessage>): void {
    const afterMs = this.idleFoldAfterMs();
    if (afterMs === undefined || this.base.disposed) return;
    const snapshot = history.slice();
    this.idleFold = setTimeout(() => {
      this.idleFold = undefined;
      void this.queue
        .run(async () => {
          if (this.base.disposed || !(await this.scheduler.load())) return;
          this.scheduler.resyncIfStale(snapshot);
          this.scheduler.maybeStartFold(snapshot, 'idle');
        })
        .catch((error: unknown) => {
          safeEmit(this.context.events, 'strategy-warning', {
            ...this.base.composer.eventBase(this.turn),
            message: `the idle fold could not start: ${error instanceof Error ? error.message : String(error)}`,
          });
        });
    }, afterMs);
    // An armed idle fold never keeps the process alive.
    this.idleFold.unref?.();
  }

  private cancelIdleFold(): void {
    if (this.idleFold !== undefined) clearTimeout(this.idleFold);
    this.idleFold = undefined;
  }

  /**
   * `config.idleCompaction` in milliseconds: `auto` is the provider's cache lifetime less {@link IDLE_FOLD_MARGIN_MS};
   * undefined when off or unknown.
   */
  private idleFoldAfterMs(): number | undefined {
    const setting = this.config.idleCompaction;
    if (setting === null) return undefined;
    if (setting !== 'auto') return setting;
    const ttl = providerCacheTtlMs(this.context.models, this.base.model);
    return ttl === undefined ? undefined : Math.max(1000, ttl - IDLE_FOLD_MARGIN_MS);
  }

  /**
   * What `composePayload` with these arguments would leave out (`dropped`) and what the fold that
   * `onTurnComplete` with this history would start now would fold (`folded`), computed without doing
   * either: nothing is stored, no event is emitted, the summarizer is not asked.
   */
  async preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<ReductionPreview> {
    this.base.assertLive('preview');
    return this.queue.run(async () => {
      const composition = await this.compose(systemPrompt, history, tools, ragContext, options, true);
      const preview = payloadPreview(composition.payload, history, this.base.counter);
      const notes: string[] = [];
      if (composition.staleSummary)
        notes.push(
          'the summary no longer matches the start of the history: the next compose drops it (summary-resync) and ' +
            'sends the history alone',
        );
      if (composition.summaryAhead)
        notes.push(
          'the summary covers more messages than this history has (a late request): the payload leaves it out, and ' +
            'it stays as it is in the store',
        );
      if (composition.wouldWait)
        notes.push(
          `a fold is running: the next compose waits for it (at most ${this.config.summaryWaitMs} ms) before ` +
            `leaving out unsummarized turns`,
        );
      const next = this.scheduler.nextFold(history, composition.room);
      if (next.reason !== undefined) {
        notes.push(`no fold at the next turn end: ${next.reason}`);
        return { ...preview, notes: [...preview.notes, ...notes] };
      }
      const folded = previewItems(history, next.from, next.to, this.base.counter);
      const tokens = folded.reduce((sum, item) => sum + item.tokens, 0);
      notes.push(
        `the next turn end folds messages ${next.from}–${next.to - 1} (${next.turns} ` +
          `turn${next.turns === 1 ? '' : 's'}, ${tokens.toLocaleString('en-US')} tokens) into the summary, in ` +
          `the background (${this.summarizer.name})`,
      );
      return { ...preview, folded, notes: [...preview.notes, ...notes] };
    });
  }

  /** The session's committed folds (kind `fold`), oldest first; each can be undone. */
  async epochs(): Promise<ReductionEpoch[]> {
    this.base.assertLive('epochs');
    return this.foldEpochs.list();
  }

  /**
   * Writes the summary from before fold `epochId` back (compare-and-set, so every instance and process
   * serving the session uses it from its next read) and removes that epoch and every later one; the
   * next payload for the same history is the one before the fold. A fold running here is aborted. The
   * fold scheduler folds the same turns again at the next turn end that finds them due.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   */
  async undo(epochId: string): Promise<UndoResult> {
    this.base.assertLive('undo');
    return this.queue.run(() => this.foldEpochs.undo(epochId, (summary) => this.scheduler.restore(summary), this.turn));
  }

  /** Resolves when no background fold is running (for tests and graceful shutdown). */
  async whenIdle(): Promise<void> {
    await this.scheduler.whenIdle();
    await this.recall?.whenIdle();
  }

  /** Stops background work; a running fold is aborted and commits nothing. Safe to call twice. */
  async dispose(): Promise<void> {
    if (!this.base.dispose()) return;
    this.cancelIdleFold();
    this.recall?.dispose();
    await this.scheduler.dispose();
  }

  /** The session's current summary buffer (a copy), or `null` when there is none. */
  async getSummaryState(): Promise<SummaryState | null> {
    await this.queue.run(() => this.scheduler.load());
    const state = this.scheduler.state;
    return state ? structuredClone(state) : null;
  }

  // ---------------------------------------------------------------- composition

  /**
   * Composes the payload. A preview composes it without remembering it: no re-sync written, no room
   * noted for the next fold, a layout the composer does not commit. A history shorter than the summary covers
   * (a late request) is composed without it, and the summary stays as it is.
   */
  private async compose(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext: string | undefined,
    options: ComposeOptions,
    preview = false,
  ): Promise<Composition> {
    const turn = this.base.turns.count(history);
    await this.scheduler.load();
    const read = this.scheduler.state;
    if (!preview) this.scheduler.resyncIfStale(history);
    if (!preview) this.turn = turn;
    const state = this.scheduler.summaryFor(history);
    const summaryAhead = this.scheduler.isAheadOf(history);
    const covered = state ? state.coveredMessages : 0;
    const recalled = this.recall ? await this.recall.prepare(history, { preview }) : undefined;
    const request = {
      systemPrompt,
      history,
      tools,
      ragContext,
      ...options,
      memory: state ? [this.summaryBlockOf(state)] : [],
      memoryShare: this.config.memoryShare,
      cutBackRatio: this.config.cutBackRatio,
      turn,
      extra: {},
    };
    const composed =
      this.recall && recalled
        ? this.recall.layout(this.base.composer, request, recalled)
        : this.base.composer.layout(request);
    const room = { room: composed.roomTokens, allowance: composed.memoryAllowanceTokens };
    if (!preview) this.scheduler.noteRoom(room);
    if (!preview && options.sent !== false) {
      // The summary version the payload sent as it is (-1: shortened, held from an earlier payload or left out while
      // there is one).
      const sentWhole = composed.memory[0] === 'sent' && composed.payload.stats.extra?.heldMemory === undefined;
      const summaryVersion = state === null ? 0 : sentWhole ? state.version : -1;
      this.scheduler.noteSent(history, composed.window.fromIndex, {
        messages: composed.payload.messages,
        tools: composed.payload.tools,
        summaryVersion,
      });
    }
    const outcome = composed.memory[0];
    Object.assign(composed.payload.stats.extra!, {
      summarizer: this.summarizer.name,
      summarizerModel: this.summarizer.model,
      summarizerOffline: this.summarizer.offline,
      summaryVersion: state?.version ?? 0,
      summaryTokens: state?.summaryTokens ?? 0,
      summaryIncluded: outcome === 'sent' || outcome === 'shortened',
      summaryOutcome: outcome ?? 'none',
      summaryAheadOfHistory: summaryAhead,
      coveredMessages: covered,
      coveredTurns: state?.coveredTurns ?? 0,
      unsummarizedTurns: this.base.turns.index.turnsWithin(covered, history.length),
      summaryRunning: this.scheduler.running,
      consecutiveFailures: this.scheduler.consecutiveFailures,
      summaryAttemptsStopped: this.scheduler.stopped,
      summaryEngine: this.engineStats(),
      ...(this.summarizer.lastReceipt ? { summaryReceipt: structuredClone(this.summarizer.lastReceipt) } : {}),
    });
    // Unsummarized history older than the window left out: a running fold would bring it back.
    const leftOut = composed.window.fromIndex > covered;
    const wouldWait = leftOut && this.scheduler.running;
    composed.payload.stats.extra!.summaryPending = leftOut ? this.pendingSummary() : null;
    return {
      payload: composed.payload,
      composed,
      wouldWait,
      turn,
      room,
      staleSummary: read !== null && state === null && !summaryAhead,
      summaryAhead,
    };
  }

  /**
   * Why unsummarized turns left out of a payload are not in its summary yet, when a fold is running
   * or has failed (`stats.extra.summaryPending`); `null` when no fold is due for them yet.
   */
  private pendingSummary(): { reason: 'running' | 'failed' | 'stopped'; message: string } | null {
    const failures = this.scheduler.consecutiveFailures;
    const failed = failures === 1 ? 'the last fold failed' : `the last ${failures} folds failed`;
    if (this.scheduler.running) {
      const retry =
        failures > 0
          ? ` (a retry after ${failed}): payloads do not wait for it`
          : `; a payload waits for it at most once, ${this.config.summaryWaitMs} ms (summaryWaitMs)`;
      return { reason: 'running', message: `composed without the newest summary: a fold is running${retry}` };
    }
    if (this.scheduler.stopped)
      return {
        reason: 'stopped',
        message:
          `composed without the newest summary: ${failed} and attempts stopped until the turns to fold ` +
          `change (maxConsecutiveFailures)`,
      };
    if (failures > 0)
      return {
        reason: 'failed',
        message:
          `composed without the newest summary: ${failed}; the next fold is tried after the back-off ` +
          `(retryBackoffMs), in the background`,
      };
    return null;
  }

  /**
   * The summary block of `state`: the one built before while the fields it shows are the same (the buffer may be read
   * afresh each turn).
   */
  private summaryBlockOf(state: SummaryState): MemoryBlock {
    const built = this.summaryBlock?.state;
    const same =
      built !== undefined &&
      built.version === state.version &&
      built.coveredMessages === state.coveredMessages &&
      built.coveredTurns === state.coveredTurns &&
      built.text === state.text;
    if (!same)
      this.summaryBlock = { state, block: summaryMemoryBlock(state, this.base.counter, this.config.memoryRole) };
    return this.summaryBlock!.block;
  }
}
