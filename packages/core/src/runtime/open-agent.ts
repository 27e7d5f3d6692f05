import type { AgentHandle } from './agent-handle';
import type { ContextRuntime, ContextRuntimeOptions } from './context-runtime';
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
  /** A one-line call of the adapter that works, quoted in the fixes. */
  example: string;
  /** The adapter's typed error for options that do not name exactly one strategy source. */
  misuse(problem: string, fix: string): Error;
}

function check(source: AgentSource, options: OpenAgentOptions): void {
  const given = (['agent', 'manifest', 'pluginId'] as const).filter((key) => source[key] !== undefined);
  if (given.length !== 1) {
    throw options.misuse(
      given.length === 0 ? 'no strategy given' : `${given.join(' and ')} given together`,
      `Pass exactly one of agent (from runtime.loadAgent), manifest (a plugin.json path or object) or pluginId (with config), e.g. ${options.example}.`,
    );
  }
  if (source.pluginId !== undefined && (typeof source.pluginId !== 'string' || source.pluginId === '')) {
    throw options.misuse('pluginId is empty', `Name an installed strategy plugin, e.g. ${options.example}.`);
  }
  if (source.pluginId === undefined && (source.config !== undefined || source.agentId !== undefined)) {
    throw options.misuse('config and agentId go with pluginId only', 'Put the config in the manifest (contextStrategy.config), or pass pluginId with config.');
  }
  if (source.agent !== undefined && (source.runtime !== undefined || source.runtimeOptions !== undefined)) {
    throw options.misuse('runtime and runtimeOptions are not used with agent', 'Drop them: the agent already belongs to the runtime that loaded it.');
  }
  if (source.runtime !== undefined && source.runtimeOptions !== undefined) {
    throw options.misuse('runtime and runtimeOptions given together', 'Pass runtimeOptions for a runtime created for you, or your own runtime, not both.');
  }
}

/**
 * The agent whose strategy a framework adapter uses: the given one, or one loaded from a manifest
 * or declared from a plugin id (with the given runtime, else a new one, disposed with the agent).
 * @throws the adapter's misuse error for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND` listing the installed ids, `CTXKIT_CONFIG_INVALID`, `CTXKIT_MANIFEST_INVALID` ...)
 */
export async function openAgent(source: AgentSource, options: OpenAgentOptions): Promise<OpenedAgent> {
  check(source, options);
  if (source.agent !== undefined) return { agent: source.agent, dispose: async () => undefined };
  const ownsRuntime = source.runtime === undefined;
  const runtime = source.runtime ?? (await createContextRuntime(source.runtimeOptions ?? {}));
  const manifest =
    source.manifest ??
    ({ id: source.agentId ?? options.defaultAgentId, contextStrategy: { type: 'plugin', pluginId: source.pluginId, config: source.config ?? {} } } as Record<string, unknown>);
  let agent: AgentHandle;
  try {
    agent = await runtime.loadAgent(manifest);
  } catch (error) {
    if (ownsRuntime) await runtime.dispose().catch(() => undefined);
    throw error;
  }
  let disposing: Promise<void> | undefined;
  return { agent, dispose: () => (disposing ??= ownsRuntime ? runtime.dispose() : agent.dispose()) };
}
