import { AgentSourceError } from '../errors/agent-source-error';
import type { AgentHandle } from './agent-handle';
import type { ContextRuntime, ContextRuntimeOptions, LoadAgentOptions } from './context-runtime';
import { createContextRuntime } from './create-context-runtime';

/** Where an adapter's strategy comes from: exactly one of `agent`, `manifest` or `pluginId`. */
export interface AgentSource {
  /** An agent already loaded with `runtime.loadAgent(...)`; the caller disposes it. */
  agent?: AgentHandle;
  /** An agent manifest: the path of its `plugin.json` (or of the directory holding it), or the manifest object. */
  manifest?: string | Record<string, unknown>;
  /** A strategy plugin id (`std-summarization-strategy` ...): an agent is declared with it. */
  pluginId?: string;
  /** The strategy's config, with `pluginId` (validated against the plugin's configSchema, defaults applied). */
  config?: Record<string, unknown>;
  /** The agent id, with `pluginId` (each adapter has its own default). */
  agentId?: string;
  /** The runtime that loads the agent (with `manifest` or `pluginId`). @default createContextRuntime(runtimeOptions) */
  runtime?: ContextRuntime;
  /** Options of the runtime created when no `runtime` is given (plugin dirs, store, LLM client ...). */
  runtimeOptions?: ContextRuntimeOptions;
  /**
   * Options of `runtime.loadAgent` for this agent (its own LLM client, store, embedder), with `manifest` or `pluginId`.
   */
  loadOptions?: LoadAgentOptions;
}

/** The agent to use and how to release what was created for it. */
export interface OpenedAgent {
  agent: AgentHandle;
  /** Disposes the agent and runtime created for it (nothing for a caller's agent). Safe to call twice. */
  dispose(): Promise<void>;
}

/** How {@link openAgent} names and reports things for the adapter that calls it. */
export interface OpenAgentOptions {
  /** The id of an agent declared from a plugin id, when `agentId` is not given. */
  defaultAgentId: string;
  /** The adapter's factory, named in every {@link AgentSourceError} (`ctxkitMiddleware` ...). */
  adapter: string;
  /** A one-line call of the adapter that works, quoted in the fixes. */
  example: string;
}

/**
 * Checks that `source` names exactly one strategy source and no option that does not go with it.
 * Synchronous, so that an adapter's factory refuses a misuse where it is called.
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) naming the problem and the fix
 */
export function checkAgentSource(source: AgentSource, options: OpenAgentOptions): void {
  const misuse = (problem: string, fix: string) => new AgentSourceError(options.adapter, problem, fix);
  if (source === null || typeof source !== 'object') {
    throw misuse('options must be an object', `Call ${options.example}.`);
  }
  const given = (['agent', 'manifest', 'pluginId'] as const).filter((key) => source[key] !== undefined);
  if (given.length !== 1) {
    throw misuse(
      given.length === 0 ? 'no strategy given' : `${given.join(' and ')} given together`,
      `Pass exactly one of agent (from runtime.loadAgent), manifest (a plugin.json path or object) or pluginId ` +
        `(with config), e.g. ${options.example}.`,
    );
  }
  if (source.pluginId !== undefined && (typeof source.pluginId !== 'string' || source.pluginId === '')) {
    throw misuse('pluginId is empty', `Name an installed strategy plugin, e.g. ${options.example}.`);
  }
  if (source.pluginId === undefined && (source.config !== undefined || source.agentId !== undefined)) {
    throw misuse(
      'config and agentId go with pluginId only',
      'Put the config in the manifest (contextStrategy.config), or pass pluginId with config.',
    );
  }
  if (
    source.agent !== undefined &&
    (source.runtime !== undefined || source.runtimeOptions !== undefined || source.loadOptions !== undefined)
  ) {
    throw misuse(
      'runtime, runtimeOptions and loadOptions are not used with agent',
      'Drop them: the agent is already loaded, by the runtime that owns it.',
    );
  }
  if (
    source.agent !== undefined &&
    (typeof source.agent !== 'object' || source.agent === null || typeof source.agent.forSession !== 'function')
  ) {
    throw misuse(
      'agent is not a loaded agent',
      'Pass what runtime.loadAgent(...) returned as agent, or a plugin.json path or manifest object as manifest.',
    );
  }
  if (source.runtime !== undefined && source.runtimeOptions !== undefined) {
    throw misuse(
      'runtime and runtimeOptions given together',
      'Pass runtimeOptions for a runtime created for you, or your own runtime, not both.',
    );
  }
}

/**
 * The agent whose strategy a framework adapter uses: the given one, or one loaded from a manifest
 * or declared from a plugin id (with the given runtime, else a new one, disposed with the agent).
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND` listing the installed ids, `CTXKIT_CONFIG_INVALID`,
 *   `CTXKIT_MANIFEST_INVALID` ...)
 */
export async function openAgent(source: AgentSource, options: OpenAgentOptions): Promise<OpenedAgent> {
  checkAgentSource(source, options);
  if (source.agent !== undefined) return { agent: source.agent, dispose: async () => undefined };
  const ownsRuntime = source.runtime === undefined;
  const runtime = source.runtime ?? (await createContextRuntime(source.runtimeOptions ?? {}));
  const manifest =
    source.manifest ??
    ({
      id: source.agentId ?? options.defaultAgentId,
      contextStrategy: { type: 'plugin', pluginId: source.pluginId, config: source.config ?? {} },
    } as Record<string, unknown>);
  let agent: AgentHandle;
  try {
    agent = await runtime.loadAgent(manifest, source.loadOptions);
  } catch (error) {
    if (ownsRuntime) await runtime.dispose().catch(() => undefined);
    throw error;
  }
  let disposing: Promise<void> | undefined;
  return { agent, dispose: () => (disposing ??= ownsRuntime ? runtime.dispose() : agent.dispose()) };
}

/** An agent opened on first use: what a framework adapter's synchronous factory holds. */
export interface LazyAgent {
  /** The agent, opened by the first call (loading its plugin and creating the runtime when needed). */
  get(): Promise<AgentHandle>;
  /** The agent once a {@link get} has resolved, else `undefined`. */
  readonly opened: AgentHandle | undefined;
  /** Disposes what was opened for the agent (nothing for a caller's agent, nothing before a `get`). Safe twice. */
  dispose(): Promise<void>;
}

/**
 * The agent of `source`, checked now and opened on first use: a caller's agent is there at once;
 * one from a manifest or plugin id is loaded by the first {@link LazyAgent.get} (a failed load is
 * tried again by the next).
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 */
export function lazyAgent(source: AgentSource, options: OpenAgentOptions): LazyAgent {
  checkAgentSource(source, options);
  let opening: Promise<OpenedAgent> | undefined;
  let opened: AgentHandle | undefined = source.agent;
  let disposed = false;
  return {
    get opened() {
      return opened;
    },
    get(): Promise<AgentHandle> {
      if (opening === undefined) {
        opening = openAgent(source, options);
        opening.then(
          (result) => {
            opened = result.agent;
          },
          () => {
            opening = undefined;
          },
        );
      }
      return opening.then((result) => result.agent);
    },
    async dispose(): Promise<void> {
      if (disposed || opening === undefined) return;
      disposed = true;
      const result = await opening.catch(() => undefined);
      await result?.dispose();
    },
  };
}
