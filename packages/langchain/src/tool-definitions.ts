import type { ToolDefinition } from '@ctxkit/core';
import { Runnable } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

/**
 * True for a tool the agent runs itself (a LangChain tool, a runnable); false for a provider's
 * built-in tool given as a plain object (web search, code execution ...), which ctxkit does not see.
 */
export function isClientTool(tool: unknown): boolean {
  return Runnable.isRunnable(tool);
}

/** The name of a tool (a client tool's `name`, a provider tool's `name` or `type`), else `undefined`. */
export function toolNameOf(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const record = tool as Record<string, unknown>;
  if (typeof record.name === 'string') return record.name;
  const fn = record.function as Record<string, unknown> | undefined;
  return typeof fn?.name === 'string' ? fn.name : undefined;
}

/** The ctxkit definition (OpenAI function tool) of a LangChain client tool, as LangChain converts it for OpenAI. */
export function toToolDefinition(tool: unknown): ToolDefinition {
  const converted = convertToOpenAITool(tool as StructuredToolInterface);
  const definition: ToolDefinition = { type: 'function', function: { name: converted.function.name } };
  if (converted.function.description !== undefined) definition.function.description = converted.function.description;
  if (converted.function.parameters !== undefined)
    definition.function.parameters = converted.function.parameters as Record<string, unknown>;
  if ((converted.function as { strict?: boolean }).strict !== undefined)
    definition.function.strict = (converted.function as { strict?: boolean }).strict!;
  return definition;
}
