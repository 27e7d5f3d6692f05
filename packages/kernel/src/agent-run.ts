import type { ChatMessage, PayloadStats, TokenUsage } from '@ctxkit/core';

import type { RunBudgetReport } from './budget/run-budget-report';
import type { ToolCallOutcome } from './loop/run-tools-step';

/** Options of one `agent.run`. */
export interface AgentRunOptions {
  /** The conversation to continue. @default 'default' */
  sessionId?: string;
  /**
   * Whose conversation it is (a user, a tenant), for strategies that share state across a resource's
   * sessions (recall with `scope: "resource"`); fixed when the session is first opened.
   */
  resourceId?: string;
  /** Bound on model calls in this run. @default the agent's maxSteps (20) */
  maxSteps?: number;
  /** Retrieved knowledge for `composePayload` (dynamic context). */
  ragContext?: string;
  /** Cancels the model calls and is passed to tools. */
  signal?: AbortSignal;
  /** Wait for the strategy's background work (`whenIdle`) before returning. @default false */
  waitForIdle?: boolean;
}

/** What `agent.run` returns. */
export interface AgentRunResult {
  /**
   * The new full history of the session (compacted, when compaction happened): the agent's own,
   * a frozen array of frozen messages (what `agent.history()` returns until the next run). Pass it
   * back, with new messages appended to a copy, to continue without copying anything.
   */
  messages: readonly ChatMessage[];
  /** Text of the model's last answer ('' when the run stopped at the step bound on a tool call). */
  finalText: string;
  /** Model calls made. */
  steps: number;
  stopReason: 'final-answer' | 'max-steps';
  /** Provider usage summed over the run's calls. */
  usage: TokenUsage;
  /** Usage of each call, in order. */
  usagePerStep: TokenUsage[];
  /** Stats of each payload sent, in order (what the model received, by the strategy's count). */
  payloads: PayloadStats[];
  /** Every tool call run, in order. */
  toolCalls: ToolCallOutcome[];
  /** How many times compaction replaced the history during the run (the pre-send check's included). */
  compactions: number;
  /** Budget, pre-send checks, tool output cuts and small-context modes of the run. */
  budget: RunBudgetReport;
}
