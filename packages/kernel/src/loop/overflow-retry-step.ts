import {
  type ChatMessage,
  ContextOverflowError,
  ErrorCodes,
  type ILLMClient,
  type LLMPayload,
  safeEmit,
} from '@ctxkit/core';

import { classifyContextOverflow } from '../budget/classify-context-overflow';
import { overflowRetryLimit } from '../budget/overflow-retry-limit';
import type { OverflowRetryReport } from '../budget/run-budget-report';
import { budgetStep, type BudgetStepResult } from './budget-step';
import { callLlmStep, type CallSettings, type ModelAnswer, outputTokensFor } from './call-llm-step';
import type { RunContext } from './run-context';
import { eventBase, type RunRecord } from './run-record';

/** What the model call needs besides the run and the payload. */
export interface ModelCallOptions {
  llm: ILLMClient;
  settings: CallSettings;
  /** Composes the payload from a history (the run's compose step). */
  compose(history: ChatMessage[]): Promise<LLMPayload>;
}

/** The answer, and the retried payload as the budget step measured it when the provider refused the first. */
export interface ModelCallResult {
  answer: ModelAnswer;
  /** The retry's payload, for the loop to record before the answer (it may have compacted the history). */
  retried?: BudgetStepResult;
}

/**
 * Calls the model ({@link callLlmStep}); when the provider refuses the request as longer than the
 * model's context (any client's wording, see `classifyContextOverflow`), composes again and holds
 * the payload to the budget the refusal implies (`overflowRetryLimit`: the provider's limit less
 * the answer's reservation, else 85% of the refused payload's budget), leaving the oldest turns out
 * if need be, and retries once. The retry is reported in `result.budget.overflowRetries` and
 * announced by a `strategy-warning` (code `CTXKIT_CONTEXT_OVERFLOW`). The loop records the retried
 * payload (`retried`), then the answer.
 * @throws ContextOverflowError (`CTXKIT_CONTEXT_OVERFLOW`, `retried: true`) when the provider refuses the retry too
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when the payload cannot be cut to the retry's line
 * @throws the client's other typed errors, unchanged
 */
export async function callModelStep(
  context: RunContext,
  record: Readonly<RunRecord>,
  payload: LLMPayload,
  options: ModelCallOptions,
): Promise<ModelCallResult> {
  const { events, calibration } = context;
  const { llm, settings } = options;
  try {
    return { answer: await callLlmStep(context, record, record.history, llm, payload, settings) };
  } catch (error) {
    const overflow = classifyContextOverflow(error, llm.name);
    if (!overflow) throw error;
    // The provider said how many tokens it counted: the calibration learns from the refusal too.
    if (overflow.actual !== undefined && calibration && !llm.offline) {
      const learned = await calibration.observe(context.sessionId, record.steps, payload, overflow.actual);
      if (learned) record.budget.tokenCalibration.push(learned);
    }
    const report: OverflowRetryReport = {
      call: record.steps,
      providerLimit: overflow.limit,
      providerCount: overflow.actual,
      sentTokens: record.sent.tokens,
      retryLimit: overflowRetryLimit({
        overflow,
        sentTokens: record.sent.tokens,
        previousLimit: record.sent.limit,
        reserveOutputTokens: outputTokensFor(payload, settings) ?? 0,
      }),
      retryTokens: undefined,
      recovered: false,
    };
    record.budget.overflowRetries.push(report);
    safeEmit(events, 'strategy-warning', {
      ...eventBase(context, record),
      code: ErrorCodes.CONTEXT_OVERFLOW,
      message:
        `${overflow.client} refused a request of ${report.sentTokens} tokens as too long for the ` +
        `model${overflow.limit !== undefined ? ` (its limit: ${overflow.limit})` : ''}; retrying once with the ` +
        `payload cut to ${report.retryLimit} tokens.`,
    });
    const retried = await budgetStep(context, record, await options.compose(record.history), {
      recompose: options.compose,
      overflowLimit: report.retryLimit,
    });
    report.retryTokens = retried.sent.tokens;
    // The retry is recorded as sent before it is: the answer's step comes after it.
    const sent = { ...record, history: retried.history ?? record.history, sent: retried.sent, flagged: false };
    try {
      const answer = await callLlmStep(context, sent, sent.history, llm, retried.payload, settings);
      report.recovered = true;
      return { answer, retried };
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
