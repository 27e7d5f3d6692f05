import type { ChatMessage, IContextManager, CtxkitEventBase, ITokenCounter, PayloadStats, TokenUsage, ToolDefinition } from '@ctxkit/core';
import type { AgentCountCalibration } from '../budget/agent-count-calibration';
import type { RunBudgetReport } from '../budget/run-budget-report';
import type { ToolOutputCaps, ToolOutputPolicy } from '../budget/tool-output-policy';
import type { ThinkingPrefixBinding } from '../providers/thinking-prefix-binding';
import type { SmallContextPlan } from '../small-context/small-context-plan';
import type { AgentTool } from '../tools/agent-tool';

/** The mutable state of one run, owned by the loop and handed to each step. */
export interface RunState {
  agentId: string;
  sessionId: string;
  strategyId: string;
  manager: IContextManager;
  /**
   * The history so far: the loop's own array of frozen messages (the caller's array is never
   * mutated; messages are shared, not copied). Steps append to it or replace it.
   */
  history: ChatMessage[];
  /** The user messages counted so far in `history` (events carry the turn): kept up to date by {@link eventBase}. */
  turns: TurnCount;
  /** Tools offered this run: the user's plus the strategy's, by name. */
  tools: Map<string, AgentTool>;
  toolDefinitions: ToolDefinition[];
  /** Model calls made. */
  steps: number;
  /** Usage of every call, in order. */
  usages: TokenUsage[];
  /** Stats of every payload sent, in order. */
  payloads: PayloadStats[];
  /** Tool-output token limit of the last payload. */
  toolOutputTokenLimit: number | undefined;
  /** Counts payloads and tool outputs (the agent's counter, calibrated to the provider when calibration is on). */
  counter: ITokenCounter;
  /** Learns the provider's counts from each call's reported usage; absent when calibration is off. */
  calibration: AgentCountCalibration | undefined;
  /** Tokens of the last payload sent (messages + tool definitions). */
  lastPayloadTokens: number;
  /** The pre-send line of the last payload (`budget.available`), when known. */
  budgetLimit: number | undefined;
  /** Set by the cheap check when the tool results just added will likely push the next payload over the line. */
  budgetFlag: boolean;
  /** The small-context plan for the agent's window (undefined until the window is known). */
  plan: SmallContextPlan | undefined;
  toolOutputPolicies: Readonly<Record<string, ToolOutputPolicy>>;
  toolOutputCaps: Partial<ToolOutputCaps>;
  /** Agent-side truncation on: tool outputs are cut to the budget before they enter the history. */
  truncateToBudget: boolean;
  /** Names of the user's tools (mode C filters only these). */
  userToolNames: ReadonlySet<string>;
  /** What the budget engine did this run. */
  budget: RunBudgetReport;
  /**
   * The session's prefix binding of signed thinking blocks (Anthropic only): each payload is sent
   * without the blocks whose prefix changed, and each request sent is recorded.
   */
  thinkingBinding?: ThinkingPrefixBinding;
}

/** User messages counted in the first `counted` messages of one history array. */
export interface TurnCount {
  history: readonly ChatMessage[];
  counted: number;
  turn: number;
}

/** The turn (user messages) of the run's history, counting only what was appended since the last call. */
export function currentTurn(state: RunState): number {
  const count = state.turns;
  if (count.history !== state.history || count.counted > state.history.length) {
    count.history = state.history;
    count.counted = 0;
    count.turn = 0;
  }
  for (let index = count.counted; index < state.history.length; index++) if (state.history[index]!.role === 'user') count.turn++;
  count.counted = state.history.length;
  return count.turn;
}

/** The fields every event of this run carries. */
export function eventBase(state: RunState): CtxkitEventBase {
  return { agentId: state.agentId, sessionId: state.sessionId, strategyId: state.strategyId, turn: currentTurn(state) };
}
