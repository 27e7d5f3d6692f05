import type { IContextManager as ContextManagerContract } from '../contracts/context-manager';
import type { IContextStore as ContextStoreContract } from '../contracts/context-store';
import type { ILLMClient as LLMClientContract } from '../contracts/llm-client';
import type { ITextEmbedder as TextEmbedderContract } from '../contracts/text-embedder';
import type { CtxkitEventBus } from '../events/event-bus';
import type { IModelRegistry as ModelRegistryContract } from '../models/model-registry';
import type { StrategyContext } from '../plugins/strategy-plugin';
import type { ITokenCounter as TokenCounterContract } from '../token-counting/token-counter';
import type { AgentContainer } from './agent-container';
import {
  IAgentId,
  IContextManager,
  IContextStore,
  IEventBus,
  ILLMClient,
  IModelRegistry,
  IStrategyContext,
  ITextEmbedder,
  ITokenCounter,
} from './injection-tokens';

/** What one agent's container holds. */
export interface AgentServices {
  agentId: string;
  events: CtxkitEventBus;
  store: ContextStoreContract;
  /** Registered only when configured; strategies then use their offline fallback. */
  llm: LLMClientContract | undefined;
  /** Registered only when configured; recall then ranks by words alone. */
  embedder?: TextEmbedderContract;
  models: ModelRegistryContract;
  counter: TokenCounterContract;
  /** The default session's strategy context. */
  strategyContext: StrategyContext;
  /** Returns the default session's (guarded) context manager; called on each resolve. */
  contextManager: () => ContextManagerContract;
}

/**
 * Registers an agent's services under the tokens of `injection-tokens.ts`: `IAgentId`,
 * `IEventBus` (one bus per agent), `IContextStore`, `ILLMClient` and `ITextEmbedder` (when configured),
 * `IModelRegistry`, `ITokenCounter`, `IStrategyContext`, and `IContextManager` as a factory
 * resolving the default session's manager. The kernel receives its `IContextManager` from here,
 * never by `new`.
 */
export function registerStrategyServices(container: AgentContainer, services: AgentServices): void {
  container
    .registerValue(IAgentId, services.agentId)
    .registerValue(IEventBus, services.events)
    .registerValue(IContextStore, services.store)
    .registerValue(IModelRegistry, services.models)
    .registerValue(ITokenCounter, services.counter)
    .registerValue(IStrategyContext, services.strategyContext)
    .registerFactory(IContextManager, () => services.contextManager());
  if (services.llm) container.registerValue(ILLMClient, services.llm);
  if (services.embedder) container.registerValue(ITextEmbedder, services.embedder);
}
