import type { ChatMessage, ContextManager, CtxkitEventBase, PayloadStats, TokenUsage, ToolDefinition } from '@ctxkit/core';
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
  /** Tool-output token limit of the last payload (seed 004 Phase 2). */
  toolOutputTokenLimit: number | undefined;
}

/** The fields every event of this run carries. */
export function eventBase(state: RunState): CtxkitEventBase {
  let turn = 0;
  for (const message of state.history) if (message.role === 'user') turn++;
  return { agentId: state.agentId, sessionId: state.sessionId, strategyId: state.strategyId, turn };
}
