import type { ChatMessage, ContextManager, CtxkitEventBase, ITokenCounter, PayloadStats, TokenUsage, ToolDefinition } from '@ctxkit/core';
import type { RunBudgetReport } from '../budget/run-budget-report';
import type { ToolOutputCaps, ToolOutputPolicy } from '../budget/tool-output-policy';
import type { SmallContextPlan } from '../small-context/small-context-plan';
import type { AgentTool } from '../tools/agent-tool';

/** The mutable state of one run, owned by the loop and handed to each step. */
export interface RunState {
  agentId: string;
  sessionId: string;
  strategyId: string;
  manager: ContextManager;
  /** The history so far (the loop's own array; the caller's is never mutated). */
  history: ChatMessage[];
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
  /** Counts payloads and tool outputs (the agent's counter). */
  counter: ITokenCounter;
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
}

/** The fields every event of this run carries. */
export function eventBase(state: RunState): CtxkitEventBase {
  let turn = 0;
  for (const message of state.history) if (message.role === 'user') turn++;
  return { agentId: state.agentId, sessionId: state.sessionId, strategyId: state.strategyId, turn };
}
