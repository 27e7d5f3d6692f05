import { hasContributedTools, type IContextManager, type JsonSchema, type ToolExecutionContext } from '@ctxkit/core';
import type { FlexibleSchema, Tool, ToolSet } from 'ai';

import { AI_SDK_SCHEMA_MARKER } from './ai-sdk-schema-marker';

/**
 * A JSON Schema as an AI SDK input schema without loading the `ai` package: marked as an AI SDK
 * schema (so that the model gets exactly this schema, as the strategy counted it) and also a
 * Standard Schema (`~standard`) with a JSON Schema converter. Validation accepts any value: the
 * strategy's tool checks its own arguments and tells the model what is wrong.
 */
export function asInputSchema(schema: Readonly<JsonSchema>): FlexibleSchema<unknown> {
  const copy = () => structuredClone(schema) as Record<string, unknown>;
  const marked = {
    [AI_SDK_SCHEMA_MARKER]: true,
    _type: undefined,
    get jsonSchema() {
      return copy();
    },
    validate: (value: unknown) => ({ success: true as const, value }),
    '~standard': {
      version: 1,
      vendor: 'ctxkit',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: copy, output: copy },
    },
  };
  return marked as unknown as FlexibleSchema<unknown>;
}

/** Who runs a contributed tool. */
export interface ToolOwner {
  agentId: string;
  sessionId: string;
}

/**
 * The tools a strategy contributes (`tool_output_cache`, `tool_output_cache_grep`, `compact` ...)
 * as AI SDK tools: same name, description and JSON Schema, executed by the strategy with the
 * call's id and abort signal. What a tool throws reaches the model as the tool's error.
 */
export function contributedAiTools(manager: IContextManager, owner: ToolOwner): ToolSet {
  const tools: ToolSet = {};
  if (!hasContributedTools(manager)) return tools;
  for (const contributed of manager.contributedTools()) {
    const { name, description, parameters } = contributed.definition.function;
    const tool: Tool<unknown, string> = {
      ...(description !== undefined ? { description } : {}),
      inputSchema: asInputSchema(parameters ?? { type: 'object', properties: {} }),
      execute: (input, options) => {
        const context: ToolExecutionContext = {
          agentId: owner.agentId,
          sessionId: owner.sessionId,
          toolCallId: options.toolCallId,
        };
        if (options.abortSignal !== undefined) context.signal = options.abortSignal;
        return contributed.execute(input, context);
      },
    };
    tools[name] = tool as ToolSet[string];
  }
  return tools;
}
