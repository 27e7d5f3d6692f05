import {
  type AgentContainer,
  type AgentHandle,
  IContextStore,
  ILLMClient,
  IModelRegistry,
  ITokenCounter,
  LLMNotConfiguredError,
} from '@ctxkit/core';

import { Agent } from './agent';
import type { AgentOptions } from './agent-options';
import { IAgentOptions, IToolRegistry } from './injection-tokens';
import { smallContextFromManifest } from './small-context/small-context-from-manifest';
import type { AgentTool } from './tools/agent-tool';
import { type IToolRegistry as ToolRegistryContract, ToolRegistry } from './tools/tool-registry';

/**
 * What `createAgent` needs from a loaded agent: `runtime.loadAgent(...)` returns one. The manifest
 * (`compactSystemPrompt`, `essentialTools`, `smallContextThreshold`, `smallContextModes`) feeds the
 * small-context modes; the config's `maxContextTokens`, else the registry's window for `model`, is
 * the window of the small-context matrix.
 */
export type AgentHandleLike = Pick<AgentHandle, 'id' | 'strategyId' | 'container' | 'forSession'> &
  Partial<Pick<AgentHandle, 'manifest' | 'config' | 'model' | 'useLLM'>>;

/** Options of {@link createAgent}. */
export interface CreateAgentOptions extends Partial<
  Omit<AgentOptions, 'agentId' | 'strategyId' | 'contextManagerFor'>
> {
  /**
   * The agent's model client: the kernel's, and its strategy's for summaries, extraction and
   * compaction (`handle.useLLM`). @default the one the agent was loaded with (`ILLMClient` in its container)
   */
  llm?: ILLMClient;
  /** The user's tools, or a registry of them. @default none */
  tools?: readonly AgentTool[] | ToolRegistryContract;
}

/** The strategy's ceiling (`config.maxContextTokens`), else the registry's window for the agent's model. */
function windowOf(handle: AgentHandleLike, container: AgentContainer): number | undefined {
  const ceiling = handle.config?.maxContextTokens;
  if (typeof ceiling === 'number' && ceiling > 0) return ceiling;
  if (!handle.model || !container.isRegistered(IModelRegistry, true)) return undefined;
  return container.resolve(IModelRegistry).find(handle.model)?.contextWindow;
}

/**
 * Builds a kernel {@link Agent} for a loaded agent: registers the LLM client, the tools and the
 * kernel settings in a child of the agent's container, and resolves the `Agent` from it, so the
 * agent receives its context manager, model, tools and event bus by injection. A client given here
 * becomes the agent's one client (`handle.useLLM`): its strategy's summaries, extraction and
 * compaction go through it too, asking for their configured model by name. The manifest's `model`
 * is the model every request names; the agent's counter, its window (the config's
 * `maxContextTokens`, else the registry's) and the manifest's small-context fields become the budget
 * engine's defaults; explicit options win.
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) when no client is given or registered
 * @throws LLMClientInUseError (`CTXKIT_LLM_CLIENT_IN_USE`) when the agent's sessions already worked with another client
 * @see docs/08-kernel.md
 */
export function createAgent(handle: AgentHandleLike, options: CreateAgentOptions = {}): Agent {
  const container = handle.container.createChild();
  const { llm, tools, ...settings } = options;
  if (llm) {
    handle.useLLM?.(llm);
    container.registerValue(ILLMClient, llm);
  } else if (!container.isRegistered(ILLMClient, true)) throw new LLMNotConfiguredError(`The agent "${handle.id}"`);
  const registry: ToolRegistryContract =
    tools === undefined
      ? new ToolRegistry()
      : Array.isArray(tools)
        ? new ToolRegistry(tools)
        : (tools as ToolRegistryContract);
  container.registerValue(IToolRegistry, registry);
  const fromManifest = smallContextFromManifest(handle.manifest);
  const smallContext =
    fromManifest || settings.smallContext ? { ...fromManifest, ...settings.smallContext } : undefined;
  const agentOptions: AgentOptions = {
    ...(container.isRegistered(ITokenCounter, true) ? { counter: container.resolve(ITokenCounter) } : {}),
    ...(container.isRegistered(IContextStore, true) ? { store: container.resolve(IContextStore) } : {}),
    ...(windowOf(handle, container) !== undefined ? { contextWindow: windowOf(handle, container) } : {}),
    ...(typeof handle.manifest?.systemPrompt === 'string' ? { systemPrompt: handle.manifest.systemPrompt } : {}),
    ...(typeof handle.manifest?.model === 'string' ? { model: handle.manifest.model } : {}),
    ...settings,
    ...(smallContext ? { smallContext } : {}),
    agentId: handle.id,
    strategyId: handle.strategyId,
    contextManagerFor: (sessionId, resourceId) =>
      handle.forSession(sessionId, resourceId !== undefined ? { resourceId } : {}),
  };
  container.registerValue(IAgentOptions, agentOptions);
  return container.resolve(Agent);
}
