import type { ToolDefinition } from '@ctxkit/core';

/** The strategy's definition of each Agents SDK tool made for a contributed tool. */
const definitions = new WeakMap<object, ToolDefinition>();

/** Remembers that `tool` stands for the strategy's `definition`. */
export function rememberStrategyDefinition(tool: object, definition: ToolDefinition): void {
  definitions.set(tool, definition);
}

/**
 * The strategy's own definition of a tool made for one of its contributed tools, else `undefined`:
 * the session counts such a tool as the strategy wrote it, so that the strategy recognises it as
 * its own (and leaves it out of a payload until it offers it).
 */
export function strategyDefinitionOf(tool: unknown): ToolDefinition | undefined {
  return tool !== null && typeof tool === 'object' ? definitions.get(tool) : undefined;
}
