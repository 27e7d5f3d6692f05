import { ILLMClient, IModelRegistry, ITokenCounter, LLMNotConfiguredError, type ContextManager, type LLMClient } from '@ctxkit/core';
import type { InjectionToken } from 'tsyringe';
import { Agent } from './agent';
import type { AgentOptions } from './agent-options';
import { IAgentOptions, IToolRegistry } from './injection-tokens';
import { smallContextFromManifest } from './small-context/small-context-from-manifest';
import type { AgentTool } from './tools/agent-tool';
import { ToolRegistry, type IToolRegistry as ToolRegistryContract } from './tools/tool-registry';

/** A container the kernel can register into and resolve from (core's `AgentContainer`). */
export interface KernelContainer {
  registerValue<T>(token: InjectionToken<T>, value: T): unknown;
  resolve<T>(token: InjectionToken<T>): T;
  isRegistered<T>(token: InjectionToken<T>, recursive?: boolean): boolean;
  createChild(): KernelContainer;
}

/** What `createAgent` needs from a loaded agent (`runtime.loadAgent(...)` returns one). */
export interface AgentHandleLike {
  readonly id: string;
  readonly strategyId: string;
  readonly container: KernelContainer;
  forSession(sessionId: string): ContextManager;
  /** The agent manifest: its `compactSystemPrompt`, `essentialTools`, `smallContextThreshold` and `smallContextModes` feed the small-context modes. */
  readonly manifest?: Readonly<Record<string, unknown>>;
  /** The strategy config: its `maxContextTokens` is the window of the small-context matrix. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The model the strategy counts for (the registry's window when the config sets no ceiling). */
  readonly model?: string;
}

/** Options of {@link createAgent}. */
export interface CreateAgentOptions extends Partial<Omit<AgentOptions, 'agentId' | 'strategyId' | 'contextManagerFor'>> {
  /** The model client. @default the one registered in the agent's container (`ILLMClient`) */
  llm?: LLMClient;
  /** The user's tools, or a registry of them. @default none */
  tools?: readonly AgentTool[] | ToolRegistryContract;
}

/** The strategy's ceiling (`config.maxContextTokens`), else the registry's window for the agent's model. */
function windowOf(handle: AgentHandleLike, container: KernelContainer): number | undefined {
  const ceiling = handle.config?.maxContextTokens;
  if (typeof ceiling === 'number' && ceiling > 0) return ceiling;
  if (!handle.model || !container.isRegistered(IModelRegistry, true)) return undefined;
  return container.resolve(IModelRegistry).find(handle.model)?.contextWindow;
}

/**
 * Builds a kernel {@link Agent} for a loaded agent: registers the LLM client, the tools and the
 * kernel settings in a child of the agent's container, and resolves the `Agent` from it, so the
 * agent receives its context manager, model, tools and event bus by injection. The agent's counter,
 * its window (the config's `maxContextTokens`, else the registry's) and the manifest's small-context
 * fields become the budget engine's defaults; explicit options win.
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) when no client is given or registered
 * @see docs/08-kernel.md
 */
export function createAgent(handle: AgentHandleLike, options: CreateAgentOptions = {}): Agent {
  const container = handle.container.createChild();
  const { llm, tools, ...settings } = options;
  if (llm) container.registerValue(ILLMClient, llm);
  else if (!container.isRegistered(ILLMClient, true)) throw new LLMNotConfiguredError(`The agent "${handle.id}"`);
  const registry: ToolRegistryContract = tools === undefined ? new ToolRegistry() : Array.isArray(tools) ? new ToolRegistry(tools) : (tools as ToolRegistryContract);
  container.registerValue(IToolRegistry, registry);
  const fromManifest = smallContextFromManifest(handle.manifest);
  const smallContext = fromManifest || settings.smallContext ? { ...fromManifest, ...settings.smallContext } : undefined;
  const agentOptions: AgentOptions = {
    ...(container.isRegistered(ITokenCounter, true) ? { counter: container.resolve(ITokenCounter) } : {}),
    ...(windowOf(handle, container) !== undefined ? { contextWindow: windowOf(handle, container) } : {}),
    ...(typeof handle.manifest?.systemPrompt === 'string' ? { systemPrompt: handle.manifest.systemPrompt } : {}),
    ...settings,
    ...(smallContext ? { smallContext } : {}),
    agentId: handle.id,
    strategyId: handle.strategyId,
    contextManagerFor: (sessionId) => handle.forSession(sessionId),
  };
  container.registerValue(IAgentOptions, agentOptions);
  return container.resolve(Agent);
}
