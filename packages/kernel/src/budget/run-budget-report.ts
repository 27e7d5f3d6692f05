import type { UsageLevel } from '@ctxkit/core';

import type { SmallContextMode, SmallContextPlan } from '../small-context/small-context-plan';
import type { TokenCalibrationReport } from './agent-count-calibration';
import type { PreSendReport } from './pre-send-check';
import type { ToolOutputTruncationReport } from './truncate-tool-result';

/** A request the provider refused as too long for the model, and its one retry. */
export interface OverflowRetryReport {
  /** The model call it was (0-based, within the run). */
  call: number;
  /** The model's limit the provider gave, in its tokens. */
  providerLimit: number | undefined;
  /** The tokens the provider counted in the refused request. */
  providerCount: number | undefined;
  /** Tokens of the refused payload, by the agent's counter. */
  sentTokens: number;
  /** The line the retry was held to, by the agent's counter (see `overflowRetryLimit`). */
  retryLimit: number;
  /** Tokens of the retried payload, once it was cut to fit. */
  retryTokens: number | undefined;
  /** True when the provider took the retry. */
  recovered: boolean;
}

/**
 * What the kernel's budget engine saw and did during one run: the small-context plan, the
 * tokens and usage level of every payload sent, every tool output cut, every pre-send check, and the
 * advice given to the user.
 * @see docs/10-small-context.md
 */
export interface RunBudgetReport {
  /** The window the matrix was chosen for (`undefined` until a payload told it). */
  contextWindow: number | undefined;
  /** The matrix row and the modes' intensities. */
  plan: SmallContextPlan | undefined;
  /** Tokens of each payload sent (messages + tool definitions, by the agent's counter), in call order. */
  tokensPerCall: number[];
  /** Usage level of each payload sent. */
  usageLevels: UsageLevel[];
  /** One report per model call, with the steps of the escalation when any was needed. */
  preSendChecks: PreSendReport[];
  /** Every tool output as it entered the history (cut or not). */
  toolOutputs: ToolOutputTruncationReport[];
  /** How many calls (A, C) or tool outputs (B) each mode changed, and how often D advised. */
  modesFired: Record<SmallContextMode, number>;
  /** Plain-language advice given to the user (mode D), in order. */
  advice: string[];
  /** Requests the provider refused as too long, each retried once with a payload cut to fit. */
  overflowRetries: OverflowRetryReport[];
  /**
   * Per model call: ctxkit's raw count, the estimate the payload was held to, the provider's count and the correction
   * learned.
   */
  tokenCalibration: TokenCalibrationReport[];
}

/** An empty report. */
export function emptyRunBudgetReport(
  contextWindow: number | undefined,
  plan: SmallContextPlan | undefined,
): RunBudgetReport {
  return {
    contextWindow,
    plan,
    tokensPerCall: [],
    usageLevels: [],
    preSendChecks: [],
    toolOutputs: [],
    modesFired: { A: 0, B: 0, C: 0, D: 0 },
    advice: [],
    overflowRetries: [],
    tokenCalibration: [],
  };
}
