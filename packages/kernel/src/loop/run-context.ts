import type { CtxkitEventBus, IContextManager, ITokenCounter, ToolDefinition } from '@ctxkit/core';

import type { AgentCountCalibration } from '../budget/agent-count-calibration';
import type { ToolOutputCaps, ToolOutputPolicy } from '../budget/tool-output-policy';
import type { AgentTool } from '../tools/agent-tool';
import type { SessionRecord } from './session-record';

/** What one run works with: fixed as it starts, read by every step, changed by none. */
export interface RunContext {
  readonly agentId: string;
  readonly sessionId: string;
  readonly strategyId: string;
  readonly manager: IContextManager;
  readonly events: CtxkitEventBus;
  /** What the agent keeps about the session between calls and runs. */
  readonly session: SessionRecord;
  /** Tools offered this run: the user's plus the strategy's, by name. */
  readonly tools: ReadonlyMap<string, AgentTool>;
  readonly toolDefinitions: readonly ToolDefinition[];
  /** Names of the user's tools (mode C filters only these). */
  readonly userToolNames: ReadonlySet<string>;
  /** Counts payloads and tool outputs (the agent's counter, calibrated to the provider when calibration is on). */
  readonly counter: ITokenCounter;
  /** Learns the provider's counts from each call's reported usage; absent when calibration is off. */
  readonly calibration: AgentCountCalibration | undefined;
  readonly toolOutputPolicies: Readonly<Record<string, ToolOutputPolicy>>;
  readonly toolOutputCaps: Partial<ToolOutputCaps>;
  /**
   * Agent-side truncation on: tool outputs are cut to the budget before they enter the history. Asked
   * when tools run, after the first compose: a strategy created asynchronously declares its
   * capabilities only once its instance exists.
   */
  truncatesToBudget(): boolean;
}
