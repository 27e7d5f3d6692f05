import { type ToolDefinition, ToolNotFoundError } from '@ctxkit/core';

import type { AgentTool } from './agent-tool';

/**
 * The tools an agent offers the model (DI token `IToolRegistry`). Strategy-contributed tools are
 * added per run by the kernel, beside these.
 * @see docs/08-kernel.md
 */
export interface IToolRegistry {
  /** Definitions to send, in registration order. */
  definitions(): ToolDefinition[];
  /** The tool with that name, or `undefined`. */
  get(name: string): AgentTool | undefined;
  /** Names of every registered tool. */
  names(): string[];
}

/**
 * The default {@link IToolRegistry}: a name → tool map. Registering a second tool under a taken
 * name replaces the first.
 */
export class ToolRegistry implements IToolRegistry {
  private readonly tools = new Map<string, AgentTool>();

  constructor(tools: readonly AgentTool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds (or replaces) a tool. */
  register(tool: AgentTool): this {
    this.tools.set(tool.definition.function.name, tool);
    return this;
  }

  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map((tool) => structuredClone(tool.definition));
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * The tool with that name.
   * @throws ToolNotFoundError (`CTXKIT_TOOL_NOT_FOUND`) naming the tools that exist
   */
  require(name: string): AgentTool {
    const tool = this.tools.get(name);
    if (!tool) throw new ToolNotFoundError(name, this.names());
    return tool;
  }
}
