import {
  CtxkitError,
  ErrorCodes,
  hasContributedTools,
  type IContextManager,
  type ToolExecutionContext,
  ToolExecutionError,
} from '@ctxkit/core';
import { type FunctionTool, tool } from '@openai/agents';

import { rememberStrategyDefinition } from './strategy-tool-definitions';

/**
 * The Agents SDK's type of a non-strict JSON Schema object. A strategy's schema is any JSON Schema;
 * the SDK sends it as it is, so it is given under this type.
 */
interface JsonSchemaParameters {
  type: 'object';
  properties: Record<string, never>;
  required: never[];
  additionalProperties: true;
}

/** What the Agents SDK tells a tool about its call. */
interface CallDetails {
  toolCall?: { callId?: string };
  signal?: AbortSignal;
}

/** Who runs a contributed tool, and whether the strategy offers it to the next model call. */
export interface ContributedToolsOwner {
  agentId: string;
  sessionId: string;
  /** True when the strategy's latest composition offered the tool named `name` to the model. */
  offers(name: string): boolean;
}

/** What the model reads for a failed call: what failed, without the developer's fix. */
function errorText(name: string, toolCallId: string, error: unknown): string {
  const failure =
    CtxkitError.isInstance(error) && error.code === ErrorCodes.TOOL_EXECUTION_FAILED
      ? error
      : new ToolExecutionError(name, toolCallId, error);
  return `Error: ${failure.message.split(' Fix: ')[0]}`;
}

/**
 * The tools a strategy contributes (the tool output cache's `tool_output_cache`,
 * `tool_output_cache_grep` and `compact`) as OpenAI Agents SDK function tools (`tool()`), with the
 * strategy's name, description and JSON Schema (strict only when the strategy's definition is),
 * executed by the strategy with the call's id and abort signal. A tool is enabled for a model call
 * while the strategy offers it (the expand tools once an output is not shown whole). A failing call
 * answers the model with `Error: ...` and the run goes on. Empty for a strategy that contributes none.
 */
export function contributedAgentsTools(manager: IContextManager, owner: ContributedToolsOwner): FunctionTool[] {
  if (!hasContributedTools(manager)) return [];
  return manager.contributedTools().map((contributed) => {
    const definition = contributed.definition;
    const { name, description, parameters, strict } = definition.function;
    const made = tool<JsonSchemaParameters, unknown, string>({
      name,
      description: description ?? name,
      // The strategy's JSON Schema as it is: the definition the model gets is the one the strategy counted.
      parameters: (parameters ?? { type: 'object', properties: {} }) as unknown as JsonSchemaParameters,
      // Strict only when the strategy says so (the SDK's types tie `strict` to the schema's type).
      strict: (strict === true) as false,
      isEnabled: () => owner.offers(name),
      execute: (input: unknown, _runContext?: unknown, details?: CallDetails) => {
        const context: ToolExecutionContext = {
          agentId: owner.agentId,
          sessionId: owner.sessionId,
          toolCallId: details?.toolCall?.callId ?? '',
        };
        if (details?.signal !== undefined) context.signal = details.signal;
        return contributed.execute(input, context);
      },
      errorFunction: (_runContext: unknown, error: unknown, details?: CallDetails) =>
        errorText(name, details?.toolCall?.callId ?? '', error),
    }) as unknown as FunctionTool;
    rememberStrategyDefinition(made, definition);
    return made;
  });
}
