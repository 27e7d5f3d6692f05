import type { DependencyContainer } from 'tsyringe';

import type { ContextSession } from '../contracts/context-session';
import type { IContextStore } from '../contracts/context-store';
import type { ILLMClient } from '../contracts/llm-client';
import type { ITextEmbedder } from '../contracts/text-embedder';
import { AgentContainer } from '../di/agent-container';
import { ILLMClient as ILLMClientToken, IStrategyContext } from '../di/injection-tokens';
import { registerStrategyServices } from '../di/register-strategy';
import { DisposedError } from '../errors/disposed-error';
import { ErrorCodes } from '../errors/error-codes';
import { LLMClientInUseError } from '../errors/llm-client-in-use-error';
import { SessionResourceError } from '../errors/session-resource-error';
import { CtxkitEventBus, safeEmit } from '../events/event-bus';
import type { IModelRegistry } from '../models/model-registry';
import { availableBudgetFromConfig } from '../pins/available-budget-from-config';
import { SessionPins } from '../pins/session-pins';
import type { AgentManifest } from '../plugins/plugin-manifest';
import type { StrategyContext, StrategyFactory } from '../plugins/strategy-plugin';
import { assertStoreKeyPart } from '../stores/store-key';
import { tracedHelperClient } from '../telemetry/traced-helper-client';
import type { ITokenCounter } from '../token-counting/token-counter';
import { SessionTraceRecorder } from '../trace/session-trace';
import { toStrategyError } from './guard-strategy-call';
import {
  capabilitiesOf,
  type CapabilityName,
  SessionContextManager,
  type SessionManagerOwner,
} from './session-context-manager';

/** The session `agent.contextManager` serves. */
export const DEFAULT_SESSION_ID = 'default';

/**
 * A loaded agent: its strategy, its container and its conversations (sessions).
 * @see docs/02-architecture.md
 */
export interface AgentHandle {
  /** The agent's id (from its manifest). */
  readonly id: string;
  /** The plugin id of its strategy (`std-sliding-window-strategy` when the manifest names none). */
  readonly strategyId: string;
  /** The model the strategy counts for: the config's `model`, else the manifest's, else `gpt-4o`. */
  readonly model: string;
  /** The agent's event bus (eventemitter3); every session's events carry their `sessionId`. */
  readonly events: CtxkitEventBus;
  /** A frozen copy of the validated manifest. */
  readonly manifest: Readonly<AgentManifest>;
  /** A frozen copy of the validated strategy config, defaults applied. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The agent's DI container (the kernel resolves and registers here). */
  readonly container: AgentContainer;
  /**
   * The agent's language model client, the one its strategies and the kernel use; `undefined` when none is configured.
   */
  readonly llm: ILLMClient | undefined;
  /**
   * Makes `llm` the agent's one language model client: its strategies' (summaries, extraction,
   * compaction, by their configured model name through this client) and the container's
   * `ILLMClient`. Sessions whose strategy looked for a client are created again with it before
   * their first use; the same client again changes nothing. The kernel's `createAgent(handle, { llm })`
   * calls it.
   * @throws LLMClientInUseError (`CTXKIT_LLM_CLIENT_IN_USE`) when such a session has already been used with another
   *   client (or none)
   * @throws DisposedError (`CTXKIT_DISPOSED`) after `dispose()`
   */
  useLLM(llm: ILLMClient): void;
  /** The context manager of the default session (`"default"`). */
  readonly contextManager: ContextSession;
  /**
   * The context manager of one conversation: one strategy instance per session, created on first
   * use with its own `StrategyContext`, so state never leaks between conversations.
   * @param options whose session it is (`resourceId`: a user, a tenant), for state shared across a
   *   resource's sessions (recall with `scope: "resource"`); fixed when the session is first opened
   * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for a session or resource id that cannot be a store key part
   * @throws SessionResourceError (`CTXKIT_SESSION_RESOURCE_CONFLICT`) when the session is open for another resource
   * @throws DisposedError (`CTXKIT_DISPOSED`) after `dispose()`
   * @throws StrategyError (`CTXKIT_STRATEGY_ERROR`) when the plugin's factory throws
   */
  forSession(sessionId: string, options?: SessionOptions): ContextSession;
  /** Like `forSession`, resolved once the strategy instance exists (for asynchronous factories). */
  openSession(sessionId: string, options?: SessionOptions): Promise<ContextSession>;
  /** The ids of the sessions opened so far. */
  sessions(): string[];
  /** True after `dispose()`. */
  readonly disposed: boolean;
  /**
   * Disposes every session's strategy that has `dispose()`, then the container. Safe to call
   * twice; later use throws `DisposedError`.
   * @throws StrategyError (`CTXKIT_STRATEGY_ERROR`) when a strategy's dispose throws (after disposing all others)
   */
  dispose(): Promise<void>;
}

/** Options of `agent.forSession`. */
export interface SessionOptions {
  /**
   * The resource the session belongs to (a user, a tenant): sessions of one resource share what a
   * strategy keeps per resource (recall with `scope: "resource"`), never another resource's.
   */
  resourceId?: string;
}

/** What {@link createAgentHandle} needs. */
export interface AgentHandleOptions {
  manifest: Readonly<AgentManifest>;
  strategyId: string;
  config: Readonly<Record<string, unknown>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  factory: StrategyFactory<any>;
  model: string;
  root: DependencyContainer;
  models: IModelRegistry;
  store: IContextStore;
  llm: ILLMClient | undefined;
  /** The agent's embedder (recall by meaning), when one is configured. */
  embedder?: ITextEmbedder;
  counterFor(model: string): ITokenCounter;
  now(): number;
  /** The session trace's size bound; `undefined` when the trace is off. */
  sessionTraceMaxBytes?: number;
  /** Called once the agent is disposed (the runtime forgets it). */
  onDispose?(): void;
}

class Agent implements AgentHandle {
  readonly id: string;
  readonly strategyId: string;
  readonly model: string;
  readonly events = new CtxkitEventBus();
  readonly manifest: Readonly<AgentManifest>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly container: AgentContainer;
  private readonly sessionManagers = new Map<string, SessionContextManager>();
  /** The resource each session was opened for, when one was named. */
  private readonly sessionResources = new Map<string, string>();
  private capabilities: ReadonlySet<CapabilityName> | undefined;
  private disposing: Promise<void> | undefined;
  private isDisposed = false;
  private client: ILLMClient | undefined;
  /** Sessions whose strategy read `context.llm`. */
  private readonly clientReaders = new Set<string>();
  /** Sessions called at least once (compose, turn end, compaction). */
  private readonly usedSessions = new Set<string>();
  private fallbackReported = false;
  /** Each session's trace, when the trace is on (one per session, kept when its strategy is created again). */
  private readonly traces = new Map<string, SessionTraceRecorder>();
  /** Strategy instances replaced by `useLLM`, disposed with the agent at the latest. */
  private readonly retired: Promise<unknown>[] = [];

  constructor(private readonly options: AgentHandleOptions) {
    this.id = options.manifest.id;
    this.strategyId = options.strategyId;
    this.model = options.model;
    this.manifest = options.manifest;
    this.config = options.config;
    this.container = new AgentContainer(options.root);
    this.client = options.llm;
  }

  get llm(): ILLMClient | undefined {
    return this.client;
  }

  get disposed(): boolean {
    return this.isDisposed;
  }

  get contextManager(): ContextSession {
    return this.forSession(DEFAULT_SESSION_ID);
  }

  /** Creates the default session and learns the strategy's capabilities from it. */
  async initialize(): Promise<void> {
    const manager = this.createSession(DEFAULT_SESSION_ID, undefined);
    const instance = (await manager.whenReady()).strategy!;
    this.capabilities = capabilitiesOf(instance);
    manager.mirror(this.capabilities);
    registerStrategyServices(this.container, {
      agentId: this.id,
      events: this.events,
      store: this.options.store,
      llm: this.client,
      ...(this.options.embedder !== undefined ? { embedder: this.options.embedder } : {}),
      models: this.options.models,
      counter: this.options.counterFor(this.model),
      strategyContext: this.defaultContext!,
      contextManager: () => this.contextManager,
    });
  }

  private defaultContext: StrategyContext | undefined;

  useLLM(llm: ILLMClient): void {
    this.assertUsable();
    if (llm === this.client) return;
    const stale = [...this.clientReaders].filter((sessionId) => this.sessionManagers.has(sessionId));
    for (const sessionId of stale) {
      if (this.usedSessions.has(sessionId)) {
        throw new LLMClientInUseError(
          this.id,
          sessionId,
          this.client ? `client ${this.client.name}` : 'no language model client (its offline fallback)',
          `client ${llm.name}`,
        );
      }
    }
    this.client = llm;
    this.container.registerValue(ILLMClientToken, llm);
    for (const sessionId of stale) {
      const manager = this.sessionManagers.get(sessionId)!;
      this.sessionManagers.delete(sessionId);
      this.clientReaders.delete(sessionId);
      const retiring = manager.disposeInstance();
      retiring.catch(() => undefined);
      this.retired.push(retiring);
      // The default session is created again now (the container serves it); the others on their next use.
      if (sessionId === DEFAULT_SESSION_ID) {
        this.createSession(DEFAULT_SESSION_ID, this.capabilities);
        this.container.registerValue(IStrategyContext, this.defaultContext!);
      }
    }
  }

  forSession(sessionId: string, options: SessionOptions = {}): ContextSession {
    this.assertUsable();
    assertStoreKeyPart('sessionId', sessionId);
    const { resourceId } = options;
    if (resourceId !== undefined) assertStoreKeyPart('resourceId', resourceId);
    const existing = this.sessionManagers.get(sessionId);
    if (existing !== undefined) {
      const current = this.sessionResources.get(sessionId);
      if (resourceId !== undefined && current !== resourceId)
        throw new SessionResourceError(this.id, sessionId, current, resourceId);
      return existing;
    }
    if (resourceId !== undefined) this.sessionResources.set(sessionId, resourceId);
    return this.createSession(sessionId, this.capabilities);
  }

  async openSession(sessionId: string, options?: SessionOptions): Promise<ContextSession> {
    const manager = this.forSession(sessionId, options) as SessionContextManager;
    return manager.whenReady();
  }

  sessions(): string[] {
    return [...this.sessionManagers.keys()];
  }

  dispose(): Promise<void> {
    this.disposing ??= this.disposeAll();
    return this.disposing;
  }

  private async disposeAll(): Promise<void> {
    this.isDisposed = true;
    let firstError: unknown;
    for (const manager of this.sessionManagers.values()) {
      try {
        await manager.disposeInstance();
      } catch (error) {
        firstError ??= error;
      }
    }
    for (const retired of this.retired) {
      await retired.catch((error: unknown) => {
        firstError ??= error;
      });
    }
    await this.container.dispose().catch((error: unknown) => {
      firstError ??= error;
    });
    this.options.onDispose?.();
    if (firstError !== undefined) throw firstError;
  }

  private createSession(
    sessionId: string,
    capabilities: ReadonlySet<CapabilityName> | undefined,
  ): SessionContextManager {
    const context = this.contextFor(sessionId);
    if (sessionId === DEFAULT_SESSION_ID) this.defaultContext = context;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
    let created: ReturnType<StrategyFactory<any>>;
    try {
      created = this.options.factory(structuredClone(this.config), context);
    } catch (error) {
      throw toStrategyError(error, this.strategyId, this.id, 'createStrategy');
    }
    const manager = new SessionContextManager(
      this.owner(sessionId),
      created,
      capabilities ?? new Set(),
      this.pinsFor(context),
      this.manifest.pinTool === true,
    );
    this.sessionManagers.set(sessionId, manager);
    // A session whose asynchronous factory fails is forgotten, so that the next use tries again.
    manager.whenReady().catch(() => {
      if (this.sessionManagers.get(sessionId) === manager) this.sessionManagers.delete(sessionId);
    });
    return manager;
  }

  /** The session's pins: the manifest's declared pins, share and role, counted for the strategy's model. */
  private pinsFor(context: StrategyContext): SessionPins {
    const { manifest, config, model, options } = this;
    return new SessionPins({
      store: context.store,
      agentId: context.agentId,
      sessionId: context.sessionId,
      strategyId: context.strategyId,
      counter: context.counter,
      events: context.events,
      now: context.now,
      declared: manifest.pins ?? [],
      ...(manifest.pinShare !== undefined ? { pinShare: manifest.pinShare } : {}),
      ...(manifest.pinRole !== undefined ? { pinRole: manifest.pinRole } : {}),
      availableBudget: () => availableBudgetFromConfig(config, model, options.models),
    });
  }

  private owner(sessionId: string): SessionManagerOwner {
    const trace = this.traceOf(sessionId);
    return {
      pluginId: this.strategyId,
      agentId: this.id,
      sessionId,
      events: this.events,
      isDisposed: () => this.isDisposed,
      noteUse: () => this.noteUse(sessionId),
      ...(trace !== undefined ? { trace } : {}),
    };
  }

  /** The session's trace recorder, when the trace is on. */
  private traceOf(sessionId: string): SessionTraceRecorder | undefined {
    const { sessionTraceMaxBytes: maxBytes, store, now } = this.options;
    if (maxBytes === undefined) return undefined;
    let trace = this.traces.get(sessionId);
    if (trace === undefined) {
      trace = new SessionTraceRecorder({
        store,
        agentId: this.id,
        sessionId,
        strategyId: this.strategyId,
        maxBytes,
        now: () => now(),
      });
      this.traces.set(sessionId, trace);
    }
    return trace;
  }

  /**
   * A session was called: it can no longer be created again with another client, and a strategy
   * that looked for a client and found none is working on its offline fallback, which is said once
   * per agent (`strategy-warning`, code `CTXKIT_LLM_NOT_CONFIGURED`).
   */
  private noteUse(sessionId: string): void {
    this.usedSessions.add(sessionId);
    if (this.fallbackReported || this.client !== undefined || !this.clientReaders.has(sessionId)) return;
    this.fallbackReported = true;
    safeEmit(this.events, 'strategy-warning', {
      agentId: this.id,
      sessionId,
      strategyId: this.strategyId,
      turn: 0,
      code: ErrorCodes.LLM_NOT_CONFIGURED,
      message:
        `${this.strategyId} looked for a language model client and agent "${this.id}" has none: it works on ` +
        `its offline fallback (no model writes its summaries, extraction or compaction). Give the agent a ` +
        `client: runtime.loadAgent(path, { llm }) or createAgent(handle, { llm }).`,
    });
  }

  private contextFor(sessionId: string): StrategyContext {
    const { options } = this;
    const agent = this;
    const resourceId = this.sessionResources.get(sessionId);
    return Object.freeze({
      agentId: this.id,
      sessionId,
      ...(resourceId !== undefined ? { resourceId } : {}),
      ...(options.embedder !== undefined ? { embedder: options.embedder } : {}),
      strategyId: this.strategyId,
      model: this.model,
      counter: options.counterFor(this.model),
      counterFor: (model: string) => options.counterFor(model),
      models: options.models,
      store: options.store,
      events: this.events,
      // Read when the strategy asks: the agent's client at that moment, and a note that it asked.
      get llm(): ILLMClient | undefined {
        agent.clientReaders.add(sessionId);
        return agent.helperClient();
      },
      now: () => options.now(),
    });
  }

  private assertUsable(): void {
    if (this.isDisposed) throw new DisposedError(`Agent "${this.id}"`);
  }

  private traced: { client: ILLMClient; helper: ILLMClient } | undefined;

  /**
   * The agent's client as strategies get it: each call a helper-model span and a `ctxkit.helper.duration` measurement.
   */
  private helperClient(): ILLMClient | undefined {
    const client = this.client;
    if (client === undefined) return undefined;
    if (this.traced?.client !== client)
      this.traced = { client, helper: tracedHelperClient(client, { agentId: this.id, strategyId: this.strategyId }) };
    return this.traced.helper;
  }
}

/**
 * Builds an agent: its child container with the agent's services, and its default session's
 * strategy instance (created now, so that a broken factory fails `loadAgent`, not the first turn).
 * @throws StrategyError (`CTXKIT_STRATEGY_ERROR`) when the plugin's factory fails
 */
export async function createAgentHandle(options: AgentHandleOptions): Promise<AgentHandle> {
  const agent = new Agent(options);
  try {
    await agent.initialize();
  } catch (error) {
    await agent.dispose().catch(() => undefined);
    throw error;
  }
  return agent;
}
