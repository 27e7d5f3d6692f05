import { ContextOverflowError, ErrorCodes, safeEmit, type CtxkitEventBus, type ILLMClient, type LLMCompletion, type LLMPayload } from '@ctxkit/core';
import { classifyContextOverflow } from '../budget/classify-context-overflow';
import { overflowRetryLimit } from '../budget/overflow-retry-limit';
import type { OverflowRetryReport } from '../budget/run-budget-report';
import { budgetStep } from './budget-step';
import { callLlmStep, outputTokensFor, type CallSettings } from './call-llm-step';
import { eventBase, type RunState } from './run-state';
import type { SessionBudgetState } from './session-budget-state';

/** What the model call needs besides the run state and the payload. */
export interface ModelCallContext {
  llm: ILLMClient;
  events: CtxkitEventBus;
  session: SessionBudgetState;
  settings: CallSettings;
  /** Composes the payload again (the run's compose step). */
  compose(): Promise<LLMPayload>;
}

/** The answer, and whether cutting the retried payload compacted the history. */
export interface ModelCallResult {
  completion: LLMCompletion;
  compacted: boolean;
}

/**
 * Calls the model ({@link callLlmStep}); when the provider refuses the request as longer than the
 * model's context (any client's wording, see `classifyContextOverflow`), composes again and holds
 * the payload to the budget the refusal implies (`overflowRetryLimit`: the provider's limit less
 * the answer's reservation, else 85% of the refused payload's budget), leaving the oldest turns out
 * if need be, and retries once. The retry is reported in `result.budget.overflowRetries` and
 * announced by a `strategy-warning` (code `CTXKIT_CONTEXT_OVERFLOW`).
 * @throws ContextOverflowError (`CTXKIT_CONTEXT_OVERFLOW`, `retried: true`) when the provider refuses the retry too
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when the payload cannot be cut to the retry's line
 * @throws the client's other typed errors, unchanged
 */
export async function callModelStep(state: RunState, payload: LLMPayload, context: ModelCallContext): Promise<ModelCallResult> {
  const { llm, events, session, settings } = context;
  try {
    return { completion: await callLlmStep(state, llm, events, payload, settings), compacted: false };
  } catch (error) {
    const overflow = classifyContextOverflow(error, llm.name);
    if (!overflow) throw error;
    // The provider said how many tokens it counted: the calibration learns from the refusal too.
    if (overflow.actual !== undefined && state.calibration && !llm.offline) {
      const learned = await state.calibration.observe(state.sessionId, state.steps, payload, overflow.actual);
      if (learned) state.budget.tokenCalibration.push(learned);
    }
    const report: OverflowRetryReport = {
      call: state.steps,
      providerLimit: overflow.limit,
      providerCount: overflow.actual,
      sentTokens: state.lastPayloadTokens,
      retryLimit: overflowRetryLimit({
        overflow,
        sentTokens: state.lastPayloadTokens,
        previousLimit: state.budgetLimit,
        reserveOutputTokens: outputTokensFor(payload, settings) ?? 0,
      }),
      retryTokens: undefined,
      recovered: false,
    };
    state.budget.overflowRetries.push(report);
    safeEmit(events, 'strategy-warning', {
      ...eventBase(state),
      code: ErrorCodes.CONTEXT_OVERFLOW,
      message: `${overflow.client} refused a request of ${report.sentTokens} tokens as too long for the model${overflow.limit !== undefined ? ` (its limit: ${overflow.limit})` : ''}; retrying once with the payload cut to ${report.retryLimit} tokens.`,
    });
    const checked = await budgetStep(state, await context.compose(), { events, session, recompose: context.compose, overflowLimit: report.retryLimit });
    report.retryTokens = state.lastPayloadTokens;
    try {
      const completion = await callLlmStep(state, llm, events, checked.payload, settings);
      report.recovered = true;
      return { completion, compacted: checked.compacted };
    } catch (second) {
      const again = classifyContextOverflow(second, llm.name);
      if (!again) throw second;
      throw new ContextOverflowError(
        {
          client: again.client,
          providerMessage: again.providerMessage,
          ...(again.limit !== undefined ? { limit: again.limit } : {}),
          ...(again.actual !== undefined ? { actual: again.actual } : {}),
          ...(again.status !== undefined ? { status: again.status } : {}),
        },
        { cause: second, retried: true },
      );
    }
  }
}
