import type { IContextManager } from '../contracts/context-manager';
import type { IContextStore } from '../contracts/context-store';
import type { ILLMClient } from '../contracts/llm-client';
import type { ITextEmbedder } from '../contracts/text-embedder';
import type { CtxkitEventBus } from '../events/event-bus';
import type { IModelRegistry } from '../models/model-registry';
import type { ITokenCounter } from '../token-counting/token-counter';

/**
 * Everything a strategy instance receives besides its validated config. One context per agent
 * and session: state keyed by `agentId` + `sessionId` never leaks between conversations.
 */
export interface StrategyContext {
  agentId: string;
  sessionId: string;
  /** The plugin id (`std-sliding-window-strategy`). */
  strategyId: string;
  /** The agent's default model (from the manifest's `model`, else the config's `model`). */
  model: string;
  /** Counter for `model` (shared, cached counts). */
  counter: ITokenCounter;
  /** Returns the shared counter of another model (e.g. a compression model). */
  counterFor(model: string): ITokenCounter;
  models: IModelRegistry;
  store: IContextStore;
  events: CtxkitEventBus;
  /** The agent's language model client; `undefined` when none is configured (use an offline fallback). */
  llm: ILLMClient | undefined;
  /** Milliseconds since epoch. Injected so that tests control time. */
  now(): number;
  /** The agent's embedder (recall by meaning); `undefined` when none is configured (recall by words only). */
  embedder?: ITextEmbedder;
  /**
   * The resource (a user, a tenant) the session belongs to, from `agent.forSession(id, { resourceId })`:
   * what `recall.scope: "resource"` shares across sessions. `undefined` when the host named none.
   */
  resourceId?: string;
}

/**
 * A strategy plugin's factory: receives the config (already validated against the plugin's
 * `configSchema`, defaults applied, a copy the factory may keep) and the context.
 */
export type StrategyFactory<TConfig = Record<string, unknown>> = (
  config: TConfig,
  context: StrategyContext,
) => IContextManager | Promise<IContextManager>;

/** What a plugin's entry module exports: `createStrategy`, the one factory the loader calls. */
export interface StrategyPluginModule {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  createStrategy: StrategyFactory<any>;
}

/** Identity helper that types a factory. */
export function defineStrategy<TConfig>(factory: StrategyFactory<TConfig>): StrategyFactory<TConfig> {
  return factory;
}
