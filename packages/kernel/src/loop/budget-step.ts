import { safeEmit, type ChatMessage, type CtxkitEventBus, type LLMPayload, type PayloadStats, type ReductionRecord } from '@ctxkit/core';
import { emitReductions, remainingForToolOutput, usageLevel, withUsage } from '@ctxkit/core/strategy-kit';
import { preSendCheck, type PreSendReport } from '../budget/pre-send-check';
import { cannotFitAdvice } from '../small-context/user-advice';
import { frozenMessage } from './frozen-message';
import { eventBase, type RunState } from './run-state';
import type { SessionBudgetState } from './session-budget-state';

/** What the budget step needs besides the run state. */
export interface BudgetStepContext {
  events: CtxkitEventBus;
  session: SessionBudgetState;
  /** Composes again after the pre-send check compacted the history (state.history is already the compacted one). */
  recompose(): Promise<LLMPayload>;
  /**
   * The line to hold the payload to instead of its budget's `available`, with the oldest turns left
   * out when the other steps are not enough: a retry after the provider refused a request as too long.
   */
  overflowLimit?: number;
}

/** What the budget step returns: the payload to send, and whether the pre-send check compacted the history. */
export interface BudgetStepResult {
  payload: LLMPayload;
  compacted: boolean;
}

/** Emits mode D's advice once per session and records it in the run. */
export function giveAdvice(state: RunState, session: SessionBudgetState, events: CtxkitEventBus, message: string): void {
  if (!state.plan || state.plan.modes.D === 'off') return;
  state.budget.modesFired.D++;
  state.budget.advice.push(message);
  if (session.adviceGiven.has(message)) return;
  session.adviceGiven.add(message);
  if (!session.engaged.has('D')) {
    session.engaged.add('D');
    safeEmit(events, 'small-context-mode', { ...eventBase(state), mode: 'D', active: true, reason: 'plain-language advice for the user' });
  }
  safeEmit(events, 'user-advice', { ...eventBase(state), message });
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
    if (field.get !== undefined || field.set !== undefined || !field.enumerable) Object.defineProperty(copy, key, field);
    else copy[key] = field.value;
  }
  return copy as unknown as PayloadStats;
}

function withReductions(stats: PayloadStats, added: readonly ReductionRecord[], tokens: number | undefined, report: PreSendReport | undefined, state: RunState, session: SessionBudgetState): PayloadStats {
  const count = (...actions: string[]) => added.reduce((sum, record) => (actions.includes(record.action) ? sum + record.messages : sum), 0);
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
  if (state.plan) extra.smallContext = { contextWindow: state.plan.contextWindow, tier: state.plan.tier, modes: { ...state.plan.modes }, engaged: [...session.engaged].sort() };
  if (report && report.steps.length > 0) extra.preSendCheck = { tokensBefore: report.tokensBefore, tokensAfter: report.tokensAfter, steps: report.steps.map((step) => ({ ...step })) };
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
 * the tool output limit derived from what is actually sent.
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when the escalation cannot fit the payload (advice is given first)
 */
export async function budgetStep(state: RunState, payload: LLMPayload, context: BudgetStepContext): Promise<BudgetStepResult> {
  const { events, session } = context;
  const stats = payload.stats;
  const budget = stats?.budget;
  const limit = context.overflowLimit ?? budget?.available;
  const composedTokens = session.payloadCount.countMessages(state.counter, payload.messages) + state.counter.countTools(payload.tools);
  if (limit === undefined) {
    const tokens = composedTokens;
    state.payloads.push(stats);
    state.lastPayloadTokens = tokens;
    state.budget.tokensPerCall.push(tokens);
    state.toolOutputTokenLimit = undefined;
    state.budgetLimit = undefined;
    state.budgetFlag = false;
    return { payload, compacted: false };
  }

  let recomposedStats: PayloadStats | undefined;
  let result;
  try {
    result = await preSendCheck({
      payload,
      tokens: composedTokens,
      history: state.history,
      manager: state.manager,
      counter: state.counter,
      limit,
      contextWindow: budget?.maxContextTokens ?? limit,
      strategyId: state.strategyId,
      call: state.steps,
      flagged: state.budgetFlag,
      recompose: async (history: ChatMessage[]) => {
        state.history = history.map(frozenMessage);
        const again = await context.recompose();
        recomposedStats = again.stats;
        return again;
      },
      onStep: (step) => safeEmit(events, 'budget-escalation', { ...eventBase(state), ...step, limit }),
      dropOldestTurns: context.overflowLimit !== undefined,
    });
  } catch (error) {
    giveAdvice(state, session, events, cannotFitAdvice());
    throw error;
  }
  const { report } = result;
  state.budget.preSendChecks.push(report);
  const changed = report.steps.length > 0;
  const baseStats = recomposedStats ?? stats;
  const tokens = report.tokensAfter;
  if (!baseStats?.budget) {
    // No budget in the stats, only the line of a retry: record what is sent, nothing to derive.
    state.payloads.push(baseStats);
    state.budget.tokensPerCall.push(tokens);
    state.lastPayloadTokens = tokens;
    state.toolOutputTokenLimit = undefined;
    state.budgetLimit = limit;
    state.budgetFlag = false;
    return { payload: result.payload, compacted: result.compactedHistory !== undefined };
  }
  const finalStats = withReductions(baseStats, result.reductions, changed ? tokens : undefined, report, state, session);
  emitReductions(events, eventBase(state), result.reductions);
  state.payloads.push(finalStats);
  state.budget.tokensPerCall.push(tokens);
  state.budget.usageLevels.push(usageLevel(tokens, baseStats.budget.maxContextTokens));
  const change = session.usage.observe(state.sessionId, report.tokensBefore, baseStats.budget.maxContextTokens);
  if (change) safeEmit(events, 'usage-level-change', { ...eventBase(state), ...change });
  state.lastPayloadTokens = tokens;
  const line = Math.min(baseStats.budget.available, limit);
  state.budgetLimit = line;
  state.toolOutputTokenLimit = remainingForToolOutput({ ...baseStats.budget, available: line }, changed ? tokens : baseStats.budget.used).toolOutputLimit;
  state.budgetFlag = false;
  return { payload: result.payload, compacted: result.compactedHistory !== undefined };
}
