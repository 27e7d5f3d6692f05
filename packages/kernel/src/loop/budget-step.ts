import {
  type ChatMessage,
  type LLMPayload,
  type PayloadStats,
  type ReductionRecord,
  safeEmit,
  type UsageLevel,
} from '@ctxkit/core';
import { emitReductions, remainingForToolOutput, usageLevel, withUsage } from '@ctxkit/core/strategy-kit';

import { preSendCheck, type PreSendReport } from '../budget/pre-send-check';
import { cannotFitAdvice } from '../small-context/user-advice';
import { frozenMessage } from './frozen-message';
import type { RunContext } from './run-context';
import { eventBase, type RunRecord, type SentPayload } from './run-record';

/** What the budget step needs besides the run and the payload. */
export interface BudgetStepOptions {
  /** Composes again from `history`, the history the pre-send check's compaction gave (its messages frozen). */
  recompose(history: ChatMessage[]): Promise<LLMPayload>;
  /**
   * The line to hold the payload to instead of its budget's `available`, with the oldest turns left
   * out when the other steps are not enough: a retry after the provider refused a request as too long.
   */
  overflowLimit?: number;
}

/** What the budget step returns: the payload to send and how it was measured, for the loop to record. */
export interface BudgetStepResult {
  payload: LLMPayload;
  /** True when the pre-send check compacted the history. */
  compacted: boolean;
  /** The history the pre-send check's compaction gave (its messages frozen): the run continues from it. */
  history?: ChatMessage[];
  /** The payload's stats, completed with what the kernel changed. */
  stats: PayloadStats;
  sent: SentPayload;
  /** The payload's usage level, when its budget is known. */
  usageLevel?: UsageLevel;
}

/** Emits mode D's advice once per session and records it in the run's report. */
export function giveAdvice(context: RunContext, record: Readonly<RunRecord>, message: string): void {
  const { session, events } = context;
  if (!record.plan || record.plan.modes.D === 'off') return;
  record.budget.modesFired.D++;
  record.budget.advice.push(message);
  if (session.adviceGiven.has(message)) return;
  session.adviceGiven.add(message);
  if (!session.engaged.has('D')) {
    session.engaged.add('D');
    safeEmit(events, 'small-context-mode', {
      ...eventBase(context, record),
      mode: 'D',
      active: true,
      reason: 'plain-language advice for the user',
    });
  }
  safeEmit(events, 'user-advice', { ...eventBase(context, record), message });
}
/**
 * A copy of the strategy's stats that keeps their lazy fields lazy: `input_tokens` and
 * `compress_ratio` may be getters counting the whole history the strategy was given, only when read.
 * Plain fields are assigned, which costs about a third of defining every field.
 */
function copyOfStats(stats: PayloadStats): PayloadStats {
  const copy: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(stats)) {
    const field = Object.getOwnPropertyDescriptor(stats, key)!;
    if (field.get !== undefined || field.set !== undefined || !field.enumerable)
      Object.defineProperty(copy, key, field);
    else copy[key] = field.value;
  }
  return copy as unknown as PayloadStats;
}

function withReductions(
  stats: PayloadStats,
  added: readonly ReductionRecord[],
  tokens: number | undefined,
  report: PreSendReport | undefined,
  context: RunContext,
  record: Readonly<RunRecord>,
): PayloadStats {
  const { plan } = record;
  const count = (...actions: string[]) =>
    added.reduce((sum, record) => (actions.includes(record.action) ? sum + record.messages : sum), 0);
  const next = copyOfStats(stats);
  if (added.length > 0) {
    next.reductions = [...stats.reductions, ...added].sort((a, b) => a.from - b.from);
    next.trimmed = stats.trimmed + count('trimmed', 'truncated');
  }
  if (tokens !== undefined && tokens !== stats.budget.used) {
    next.output_tokens = tokens;
    next.budget = withUsage(stats.budget, tokens);
    next.usageLevel = usageLevel(tokens, stats.budget.maxContextTokens);
  }
  const extra: Record<string, unknown> = { ...(stats.extra ?? {}) };
  if (plan)
    extra.smallContext = {
      contextWindow: plan.contextWindow,
      tier: plan.tier,
      modes: { ...plan.modes },
      engaged: [...context.session.engaged].sort(),
    };
  if (report && report.steps.length > 0)
    extra.preSendCheck = {
      tokensBefore: report.tokensBefore,
      tokensAfter: report.tokensAfter,
      steps: report.steps.map((step) => ({ ...step })),
    };
  next.extra = extra;
  return next;
}

/**
 * Between compose and the model call: the real pre-send check (see `preSendCheck`) on the
 * payload at the 90% line (`stats.budget.available`; the retry line of a request the provider refused
 * as too long, `overflowLimit`, with the oldest turns left out if need be), the payload's stats completed with what the
 * kernel changed (the check's trims, each reported by `history-trim` or `tool-output-trim`;
 * `stats.extra.smallContext`, `stats.extra.preSendCheck`; mode A's collapsed results are already in
 * the strategy's stats, its composer reports them), the usage level of the payload as the strategy
 * composed it, by the agent's counter, tracked per session (`usage-level-change` is emitted here and
 * only here for the sessions the kernel runs; `critical` when the payload passed 90% of the window
 * and the check had to fit it), and
 * the tool output limit derived from what is actually sent. The pre-send check's report is appended
 * to the run's; the rest is returned for the loop to record.
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when the escalation cannot fit the payload (advice is given
 *   first)
 */
export async function budgetStep(
  context: RunContext,
  record: Readonly<RunRecord>,
  payload: LLMPayload,
  options: BudgetStepOptions,
): Promise<BudgetStepResult> {
  const { events, session, counter } = context;
  const stats = payload.stats;
  const budget = stats?.budget;
  const limit = options.overflowLimit ?? budget?.available;
  const composedTokens =
    session.payloadCount.countMessages(counter, payload.messages) + counter.countTools(payload.tools);
  if (limit === undefined)
    return {
      payload,
      compacted: false,
      stats,
      sent: { tokens: composedTokens, limit: undefined, toolOutputTokenLimit: undefined },
    };

  let recomposedStats: PayloadStats | undefined;
  let history: ChatMessage[] | undefined;
  let result;
  try {
    result = await preSendCheck({
      payload,
      tokens: composedTokens,
      history: record.history,
      manager: context.manager,
      counter,
      limit,
      contextWindow: budget?.maxContextTokens ?? limit,
      strategyId: context.strategyId,
      call: record.steps,
      flagged: record.flagged,
      recompose: async (compacted: ChatMessage[]) => {
        history = compacted.map(frozenMessage);
        const again = await options.recompose(history);
        recomposedStats = again.stats;
        return again;
      },
      onStep: (step) =>
        safeEmit(events, 'budget-escalation', { ...eventBase(context, record, history), ...step, limit }),
      dropOldestTurns: options.overflowLimit !== undefined,
    });
  } catch (error) {
    giveAdvice(context, history ? { ...record, history } : record, cannotFitAdvice());
    throw error;
  }
  const { report } = result;
  record.budget.preSendChecks.push(report);
  const changed = report.steps.length > 0;
  const baseStats = recomposedStats ?? stats;
  const tokens = report.tokensAfter;
  const replaced = { compacted: result.compactedHistory !== undefined, ...(history !== undefined ? { history } : {}) };
  // No budget in the stats, only the line of a retry: record what is sent, nothing to derive.
  if (!baseStats?.budget)
    return {
      payload: result.payload,
      ...replaced,
      stats: baseStats,
      sent: { tokens, limit, toolOutputTokenLimit: undefined },
    };
  const finalStats = withReductions(
    baseStats,
    result.reductions,
    changed ? tokens : undefined,
    report,
    context,
    record,
  );
  const base = () => eventBase(context, record, history);
  emitReductions(events, base(), result.reductions);
  session.usage.observe(report.tokensBefore, baseStats.budget.maxContextTokens, base);
  const line = Math.min(baseStats.budget.available, limit);
  const toolOutputTokenLimit = remainingForToolOutput(
    { ...baseStats.budget, available: line },
    changed ? tokens : baseStats.budget.used,
  ).toolOutputLimit;
  return {
    payload: result.payload,
    ...replaced,
    stats: finalStats,
    sent: { tokens, limit: line, toolOutputTokenLimit },
    usageLevel: usageLevel(tokens, baseStats.budget.maxContextTokens),
  };
}

/**
 * Records what the budget step measured in the run: the history a compaction gave, the payload's stats, tokens and
 * line.
 */
export function recordSent(record: RunRecord, checked: BudgetStepResult): void {
  if (checked.history) record.history = checked.history;
  record.payloads.push(checked.stats);
  record.budget.tokensPerCall.push(checked.sent.tokens);
  if (checked.usageLevel !== undefined) record.budget.usageLevels.push(checked.usageLevel);
  record.sent = checked.sent;
  record.flagged = false;
}
