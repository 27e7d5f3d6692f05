import {
  CtxkitError,
  ErrorCodes,
  LLMNotConfiguredError,
  LLMResponseError,
  safeEmit,
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type CtxkitEventBase,
  type StrategyContext,
  type TokenCounter,
  type TokenUsage,
  type UserMessage,
} from '@ctxkit/core';
import type { CachedOutputs } from '../cache/cached-outputs';
import { countTurns } from '../count-turns';
import type { ViewEntry } from '../view/view-entry';
import type { WorkingView } from '../view/working-view';
import { compactMessages } from './compact-messages';
import type { ResolvedCompactionConfig } from './compaction-config';
import type { CompactionState } from './compaction-state';
import { mapHistory } from './history-layout';
import { repairToolPairs } from './repair-tool-pairs';
import { saveTranscript } from './save-transcript';
import { compactionThreshold, shouldCompact } from './should-compact';
import { summaryInput } from './summary-input';
import { compactionTail } from './tail-turns';

/** What caused a compaction. */
export type CompactionTrigger = 'auto' | 'manual' | 'budget';

/** The working view of the history being compacted, built only when a compaction needs it. */
export type ViewSource = () => Promise<WorkingView>;

/** Where a {@link Compactor} works. */
export interface CompactorOptions {
  config: ResolvedCompactionConfig;
  context: StrategyContext;
  strategyId: string;
  /** The strategy's model: the summary call's when `config.model` is `null`. */
  model: string;
  counter: TokenCounter;
  /** The context limit the threshold is a share of. */
  contextLimit: number;
  /** The session's cached outputs, collected after a compaction; `undefined` while the cache is off. */
  outputs: CachedOutputs | undefined;
  eventBase(turn: number): CtxkitEventBase;
}

/**
 * The compaction of one session: when to compact (threshold, anti-loop guard, a pending `compact`
 * request), the compaction itself (transcript saved first, then retain + summary written by the
 * model, the last turns kept), and the state that maps every later history onto the compacted one.
 * Failures are reported (event, `lastError`) and change nothing; they never throw.
 */
export class Compactor {
  private current: CompactionState | undefined;
  private guardMinTokens = 0;
  private lastUsage: TokenUsage | undefined;
  private manualRequest: { focus: string | undefined } | undefined;
  private lastError: { code: string; message: string; trigger: CompactionTrigger } | undefined;
  /** The system prompt of the latest payload, sent first in the summary call. */
  systemPrompt = '';

  constructor(private readonly options: CompactorOptions) {}

  /** The current compaction; `undefined` before the first one. */
  get state(): Readonly<CompactionState> | undefined {
    return this.current;
  }

  /** Asks for a compaction at the next hook or payload (the `compact` tool). */
  request(focus: string | undefined): void {
    this.manualRequest = { focus };
  }

  /** The caller's history mapped onto the compaction; a history that no longer continues it sets the compaction aside (with a warning). */
  map(history: ReadonlyArray<ChatMessage>, turn: number): ViewEntry[] {
    const entries = mapHistory(history, this.current);
    if (entries) return entries;
    this.current = undefined;
    this.guardMinTokens = 0;
    safeEmit(this.options.context.events, 'strategy-warning', {
      ...this.options.eventBase(turn),
      message: 'The history no longer continues the compacted conversation; the compaction was set aside and the history is used as given.',
    });
    return mapHistory(history, undefined)!;
  }

  /** The compaction hook: a pending request first, else an automatic compaction when the usage passes the threshold and the guard allows it. */
  async check(checkpoint: CompactionCheckpoint, history: ReadonlyArray<ChatMessage>, usage: TokenUsage | undefined, view: ViewSource): Promise<CompactionHookResult> {
    if (usage) this.lastUsage = usage;
    if (this.manualRequest) return this.run(history, view, 'manual', this.manualRequest.focus);
    const config = this.options.config;
    if (!config.enabled || !config.auto) return { compacted: false, reason: 'automatic compaction is off' };
    const decideOn = checkpoint === 'after-llm-call' ? (usage ?? this.lastUsage) : (this.lastUsage ?? usage);
    if (!decideOn) return { compacted: false, reason: 'no usage reported yet' };
    if (!shouldCompact(decideOn, this.options.contextLimit, config)) return { compacted: false, reason: 'below the compaction threshold' };
    const built = await view();
    const tokens = this.sumTokens(built.entries);
    if (tokens < this.guardMinTokens) return { compacted: false, reason: `anti-loop guard: waiting until the history reaches ${this.guardMinTokens} tokens` };
    return this.run(history, async () => built, 'auto');
  }

  /** Before a payload: a requested compaction, or an automatic one when the estimate (`fixedTokens` + the view) passes the threshold. True when the history was compacted. */
  async compactIfDue(history: ReadonlyArray<ChatMessage>, view: WorkingView, fixedTokens: number): Promise<boolean> {
    const config = this.options.config;
    if (!config.enabled) return false;
    if (this.manualRequest) return (await this.run(history, async () => view, 'manual', this.manualRequest.focus)).compacted;
    if (!config.auto) return false;
    const historyTokens = this.sumTokens(view.entries);
    const total = fixedTokens + historyTokens;
    const estimate = { input_tokens: total, output_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, total_tokens: total };
    if (!shouldCompact(estimate, this.options.contextLimit, config) || historyTokens < this.guardMinTokens) return false;
    return (await this.run(history, async () => view, 'auto')).compacted;
  }

  /** The compaction part of `stats.extra`. */
  stats(): Record<string, unknown> {
    const { config, contextLimit } = this.options;
    return {
      contextLimit,
      threshold: compactionThreshold(contextLimit, config),
      count: this.current?.count ?? 0,
      transcriptRef: this.current?.transcriptRef ?? null,
      guardMinTokens: this.guardMinTokens,
      lastError: this.lastError ?? null,
    };
  }

  /**
   * Saves the transcript, has the model write retain + summary, and replaces everything before the
   * last `retainLastTurns` turns. A failure, or a result that does not shrink the history, changes
   * nothing, is reported, and arms the anti-loop guard.
   */
  private async run(history: ReadonlyArray<ChatMessage>, view: ViewSource, trigger: CompactionTrigger, focus?: string): Promise<CompactionHookResult> {
    this.manualRequest = undefined;
    const { config, context, counter } = this.options;
    const turn = countTurns(history);
    const base = this.options.eventBase(turn);
    if (!config.enabled) return { compacted: false, reason: 'compaction is disabled' };
    const entries = repairToolPairs((await view()).entries);
    const tokensBefore = this.sumTokens(entries);
    safeEmit(context.events, 'compaction-start', { ...base, trigger, tokensBefore });
    const fail = (error: unknown): CompactionHookResult => {
      const code = CtxkitError.isInstance(error) ? error.code : ErrorCodes.STRATEGY_ERROR;
      const message = error instanceof Error ? error.message : String(error);
      this.lastError = { code, message, trigger };
      this.guardMinTokens = tokensBefore + config.retryAfterTokens;
      safeEmit(context.events, 'compaction-error', { ...base, trigger, error: { code, message } });
      return { compacted: false, reason: message };
    };
    const llm = context.llm;
    if (!llm) return fail(new LLMNotConfiguredError(`${this.options.strategyId} compaction`));

    let transcriptRef: string;
    try {
      transcriptRef = (await saveTranscript(context.store, context, history, context.now())).ref;
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
      const input = this.summaryMessages(entries);
      reply = await compactMessages(input, { llm, callerModel: this.options.model, config, systemPrompt: this.systemPrompt || undefined, focus });
    } catch (error) {
      return fail(error);
    }

    const prefix: UserMessage[] = [];
    if (reply.retain.trim() !== '') prefix.push({ role: 'user', content: reply.retain });
    prefix.push({ role: 'user', content: reply.summary });
    if (carried) prefix.push({ ...(carried.message as UserMessage) });
    const tokensAfter = counter.countMessages(prefix) + this.sumTokens(tail);
    if (tokensAfter >= tokensBefore) {
      return fail(
        new LLMResponseError(`the compaction result (${tokensAfter} tokens) is not smaller than the history it replaces (${tokensBefore} tokens)`, {
          client: llm.name,
          model: config.model ?? this.options.model,
        }),
      );
    }

    // Commit: from here on the caller's history maps onto prefix + kept turns.
    const firstKept = tail.find((entry) => entry.source !== null);
    const keepFrom = firstKept ? firstKept.source! : history.length;
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
    this.guardMinTokens = tokensAfter + config.retryAfterTokens;
    this.lastUsage = undefined;
    this.lastError = undefined;
    const compacted = [...prefix, ...history.slice(keepFrom)];
    if (this.options.outputs) await this.options.outputs.collect(compacted, reply, turn);
    safeEmit(context.events, 'compaction-end', { ...base, trigger, tokensBefore, tokensAfter, transcriptRef, messages: compacted });
    return { compacted: true, messages: compacted, reason: `${trigger} compaction: ${tokensBefore} → ${tokensAfter} tokens; transcript ${transcriptRef}` };
  }

  /** The summary call's messages: the view, oldest units left out (they are in the transcript) until it fits the summary model. */
  private summaryMessages(entries: ReadonlyArray<ViewEntry>): ChatMessage[] {
    const { config, context } = this.options;
    const summaryModel = config.model;
    const limit = summaryModel ? context.models.get(summaryModel).contextWindow : this.options.contextLimit;
    const counter = summaryModel ? context.counterFor(summaryModel) : this.options.counter;
    const available = Math.floor(limit * 0.9) - config.maxSummaryTokens - counter.count(this.systemPrompt) - 1024;
    return summaryInput(entries, available, counter);
  }

  private sumTokens(entries: ReadonlyArray<ViewEntry>): number {
    let total = 0;
    for (const entry of entries) total += this.options.counter.countMessage(entry.message);
    return total;
  }
}
