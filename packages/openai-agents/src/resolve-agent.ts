import { createContextRuntime, type AgentHandle, type ContextRuntime, type ContextRuntimeOptions } from '@ctxkit/core';
import { CtxkitSessionOptionsError } from './errors/ctxkit-session-options-error';

/** Where a session's strategy comes from: exactly one of `agent`, `manifest` or `pluginId`. */
export interface AgentSource {
  /** An agent already loaded with `runtime.loadAgent(...)`; the caller disposes it. */
  agent?: AgentHandle;
  /** An agent manifest: the path of its `plugin.json` (or of the directory holding it), or the manifest object. */
  manifest?: string | Record<string, unknown>;
  /** A strategy plugin id (`std-summarization-strategy` ...): an agent is declared with it. */
  pluginId?: string;
  /** The strategy's config, with `pluginId` (validated against the plugin's configSchema, defaults applied). */
  config?: Record<string, unknown>;
  /** The agent id, with `pluginId`. @default 'openai-agents-agent' */
  agentId?: string;
  /** The runtime that loads the agent (with `manifest` or `pluginId`). @default createContextRuntime(runtimeOptions) */
  runtime?: ContextRuntime;
  /** Options of the runtime created when no `runtime` is given (plugin dirs, store, LLM client ...). */
  runtimeOptions?: ContextRuntimeOptions;
}

/** The agent to use and how to release what was created for it. */
export interface ResolvedAgent {
  agent: AgentHandle;
  /** Disposes the agent and runtime created for it (nothing for a caller's agent). Safe twice. */
  dispose(): Promise<void>;
}

/** The agent id of the agent declared from a plugin id. */
export const DEFAULT_OPENAI_AGENTS_AGENT_ID = 'openai-agents-agent';

const EXAMPLE = "createCtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } })";

function check(options: AgentSource): void {
  const given = (['agent', 'manifest', 'pluginId'] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new CtxkitSessionOptionsError(
      given.length === 0 ? 'no strategy given' : `${given.join(' and ')} given together`,
      `Pass exactly one of agent (from runtime.loadAgent), manifest (a plugin.json path or object) or pluginId (with config), e.g. ${EXAMPLE}.`,
    );
  }
  if (options.pluginId !== undefined && (typeof options.pluginId !== 'string' || options.pluginId === '')) {
    throw new CtxkitSessionOptionsError('pluginId is empty', `Name an installed strategy plugin, e.g. ${EXAMPLE}.`);
  }
  if (options.pluginId === undefined && (options.config !== undefined || options.agentId !== undefined)) {
    throw new CtxkitSessionOptionsError('config and agentId go with pluginId only', 'Put the config in the manifest (contextStrategy.config), or pass pluginId with config.');
  }
  if (options.agent !== undefined && (options.runtime !== undefined || options.runtimeOptions !== undefined)) {
    throw new CtxkitSessionOptionsError('runtime and runtimeOptions are not used with agent', 'Drop them: the agent already belongs to the runtime that loaded it.');
  }
  if (options.runtime !== undefined && options.runtimeOptions !== undefined) {
    throw new CtxkitSessionOptionsError('runtime and runtimeOptions given together', 'Pass runtimeOptions for a runtime created for the session, or your own runtime, not both.');
  }
}

/**
 * The agent whose strategy the session uses: the given one, or one loaded from a manifest or
 * declared from a plugin id (with the given runtime, else a new one).
 * @throws CtxkitSessionOptionsError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND` listing the installed ids, `CTXKIT_CONFIG_INVALID`, `CTXKIT_MANIFEST_INVALID` ...)
 */
export async function resolveAgent(options: AgentSource): Promise<ResolvedAgent> {
  check(options);
  if (options.agent !== undefined) return { agent: options.agent, dispose: async () => undefined };
  const ownsRuntime = options.runtime === undefined;
  const runtime = options.runtime ?? (await createContextRuntime(options.runtimeOptions ?? {}));
  const manifest =
    options.manifest ??
    ({ id: options.agentId ?? DEFAULT_OPENAI_AGENTS_AGENT_ID, contextStrategy: { type: 'plugin', pluginId: options.pluginId, config: options.config ?? {} } } as Record<string, unknown>);
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
