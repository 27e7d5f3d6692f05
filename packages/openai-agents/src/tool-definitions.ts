import { PIN_CONTEXT_TOOL, type ToolDefinition, UNPIN_CONTEXT_TOOL } from '@ctxkit/core';

import { strategyDefinitionOf } from './strategy-tool-definitions';

/** A tool as the session is given it: a ctxkit `ToolDefinition`, or an Agents SDK tool (`tool({...})`). */
export type SessionTool =
  ToolDefinition | { type: string; name?: string; description?: string; parameters?: unknown; strict?: boolean };

/**
 * The ctxkit definitions of `tools`: ctxkit definitions as they are, a strategy's contributed tools
 * (`session.contributedTools()`) as the strategy defined them, other Agents SDK function tools by
 * their name, description, JSON Schema parameters and `strict`. Hosted tools (web search, file
 * search, computer ...) have no definition a tokenizer can count and are left out.
 */
export function toToolDefinitions(tools: readonly SessionTool[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const tool of tools) {
    if (tool === null || typeof tool !== 'object') continue;
    const contributed = strategyDefinitionOf(tool);
    if (contributed !== undefined) {
      out.push(contributed);
      continue;
    }
    if ('function' in tool && tool.function !== null && typeof tool.function === 'object') {
      out.push(tool as ToolDefinition);
      continue;
    }
    const sdkTool = tool as Exclude<SessionTool, ToolDefinition>;
    if (sdkTool.type !== 'function' || typeof sdkTool.name !== 'string') continue;
    const definition: ToolDefinition = { type: 'function', function: { name: sdkTool.name } };
    if (typeof sdkTool.description === 'string') definition.function.description = sdkTool.description;
    if (sdkTool.parameters !== null && typeof sdkTool.parameters === 'object')
      definition.function.parameters = sdkTool.parameters as Record<string, unknown>;
    if (typeof sdkTool.strict === 'boolean') definition.function.strict = sdkTool.strict;
    out.push(definition);
  }
  return out;
}

/**
 * The session's pin tools (a manifest with `pinTool`), contributed beside the strategy's: no strategy
 * adds them to a payload, so they are given to it with the caller's tools, as the kernel gives them.
 */
const SESSION_TOOLS: ReadonlySet<string> = new Set([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]);

/**
 * The ctxkit definitions of the tools to give the strategy: the caller's own. The tools made for a
 * strategy's contributed tools are left out, so that a payload carries one exactly when the strategy
 * offers it (it adds its own definitions when they are useful: `compact` only with an LLM client to
 * write the summary).
 */
export function callerToolDefinitions(tools: readonly SessionTool[]): ToolDefinition[] {
  return toToolDefinitions(
    tools.filter((tool) => {
      const own = strategyDefinitionOf(tool);
      return own === undefined || SESSION_TOOLS.has(own.function.name);
    }),
  );
}
