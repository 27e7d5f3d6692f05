import type { ChatMessage, CtxkitEventBase, PayloadStats, TokenUsage } from '@ctxkit/core';

import type { RunBudgetReport } from '../budget/run-budget-report';
import type { SmallContextPlan } from '../small-context/small-context-plan';
import type { RunContext } from './run-context';

/** How the last payload sent was measured: what the tool step holds its results to. */
export interface SentPayload {
  /** Its tokens (messages + tool definitions). */
  readonly tokens: number;
  /** Its pre-send line (`budget.available`, or a retry's lower line), when known. */
  readonly limit: number | undefined;
  /** The tool-output token limit it leaves. */
  readonly toolOutputTokenLimit: number | undefined;
}

/** Before the first payload: nothing measured. */
export const NOTHING_SENT: SentPayload = Object.freeze({
  tokens: 0,
  limit: undefined,
  toolOutputTokenLimit: undefined,
});

/**
 * What one run has done so far, as plain data. Only the loop (`agent.ts`) changes it, from what each
 * step returns; steps read it. The exception is `budget`, the run's report, to which steps append
 * what they measured and did.
 */
export interface RunRecord {
  /**
   * The history so far: the loop's own array of frozen messages (the caller's array is never
   * mutated; messages are shared, not copied). Appended to, or replaced by a compaction.
   */
  history: ChatMessage[];
  /** The user messages counted so far in `history` (events carry the turn): kept up to date by {@link eventBase}. */
  readonly turns: TurnCount;
  /** Model calls made. */
  steps: number;
  /** Usage of every call, in order. */
  readonly usages: TokenUsage[];
  /** Stats of every payload sent, in order. */
  readonly payloads: PayloadStats[];
  /** The small-context plan for the agent's window (undefined until the window is known). */
  plan: SmallContextPlan | undefined;
  /** The last payload sent. */
  sent: SentPayload;
  /** Set when the tool results just added will likely push the next payload over the line (the cheap check). */
  flagged: boolean;
  /** What the budget engine did this run. */
  readonly budget: RunBudgetReport;
}

/** User messages counted in the first `counted` messages of one history array. */
export interface TurnCount {
  history: readonly ChatMessage[];
  counted: number;
  turn: number;
}

/** The turn (user messages) of `history`, counting only what was appended since the last call with the same array. */
export function currentTurn(count: TurnCount, history: readonly ChatMessage[]): number {
  if (count.history !== history || count.counted > history.length) {
    count.history = history;
    count.counted = 0;
    count.turn = 0;
  }
  for (let index = count.counted; index < history.length; index++) if (history[index]!.role === 'user') count.turn++;
  count.counted = history.length;
  return count.turn;
}

/** The fields every event of the run carries, at `history` (the record's, unless a step holds a newer one). */
export function eventBase(
  context: RunContext,
  record: Pick<RunRecord, 'turns' | 'history'>,
  history: readonly ChatMessage[] = record.history,
): CtxkitEventBase {
  return {
    agentId: context.agentId,
    sessionId: context.sessionId,
    strategyId: context.strategyId,
    turn: currentTurn(record.turns, history),
  };
}
