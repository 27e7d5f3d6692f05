import type { ToolDefinition, ToolExecutionContext } from '@ctxkit/core';

/**
 * A tool the agent can run: its definition (sent to the model) and its executor. A string result
 * is given to the model as it is; any other value is sent as its JSON text. A tool that throws
 * does not stop the run: the model gets the error as the tool result (`ToolExecutionError`).
 *
 * Strategy-contributed tools (`ContributedTool`) have the same shape.
 */
export interface AgentTool {
  definition: ToolDefinition;
  execute(args: unknown, context: ToolExecutionContext): unknown;
}
