import {
  type AgentHandle,
  type ContributedTool,
  CtxkitError,
  ErrorCodes,
  hasContributedTools,
  type ToolExecutionContext,
  ToolExecutionError,
  ToolNotFoundError,
} from '@ctxkit/core';
import { ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';

import { sessionFor, type SessionIdResolver } from './session-id';

/** What a LangChain tool function receives besides its input, as the agent's tool node calls it. */
interface ToolCallConfig {
  configurable?: Record<string, unknown>;
  context?: unknown;
  /** The run's LangGraph config (its `context` is the run's context). */
  config?: { context?: unknown };
  toolCall?: { id?: string };
  toolCallId?: string;
  signal?: AbortSignal;
}

/** The tool result the model gets for a failed call: says what failed (as the ctxkit kernel does). */
function errorResult(name: string, toolCallId: string, error: CtxkitError): ToolMessage {
  return new ToolMessage({
    content: `Error: ${error.message.split(' Fix: ')[0]}`,
    tool_call_id: toolCallId,
    name,
    status: 'error',
  });
}

async function execute(
  agent: AgentHandle,
  resolve: SessionIdResolver,
  name: string,
  input: unknown,
  config: ToolCallConfig,
): Promise<string | ToolMessage> {
  const { sessionId, manager } = sessionFor(agent, resolve, {
    configurable: config.configurable,
    context: config.context ?? config.config?.context,
  });
  const toolCallId = config.toolCall?.id ?? config.toolCallId ?? '';
  const tools: ContributedTool[] = hasContributedTools(manager) ? manager.contributedTools() : [];
  const contributed = tools.find((candidate) => candidate.definition.function.name === name);
  if (!contributed) {
    return errorResult(
      name,
      toolCallId,
      new ToolNotFoundError(
        name,
        tools.map((candidate) => candidate.definition.function.name),
      ),
    );
  }
  const context: ToolExecutionContext = { agentId: agent.id, sessionId, toolCallId };
  if (config.signal !== undefined) context.signal = config.signal;
  try {
    return await contributed.execute(input, context);
  } catch (error) {
    const failure =
      CtxkitError.isInstance(error) && error.code === ErrorCodes.TOOL_EXECUTION_FAILED
        ? error
        : new ToolExecutionError(name, toolCallId, error);
    return errorResult(name, toolCallId, failure);
  }
}

/**
 * The tools the agent's strategy contributes (the tool output cache's `tool_output_cache`,
 * `tool_output_cache_grep` and `compact`), as LangChain tools with the strategy's own definitions.
 * Each call runs through the strategy of the conversation it belongs to (`resolve` picks the session
 * from the run, as the middleware does). A failing call answers the model with `Error: ...`
 * (status `error`) rather than stopping the run. Empty for a strategy that contributes none.
 */
export function contributedLangChainTools(agent: AgentHandle, resolve: SessionIdResolver): StructuredToolInterface[] {
  const manager = agent.contextManager;
  if (!hasContributedTools(manager)) return [];
  return manager.contributedTools().map(({ definition }) => {
    const name = definition.function.name;
    const schema = definition.function.parameters ?? { type: 'object', properties: {} };
    return tool(
      (input: unknown, config: unknown) => execute(agent, resolve, name, input, (config ?? {}) as ToolCallConfig),
      {
        name,
        description: definition.function.description ?? name,
        schema: schema as { type: 'object' },
      },
    ) as unknown as StructuredToolInterface;
  });
}
