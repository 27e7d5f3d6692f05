import { openAgent, type AgentSource, type OpenAgentOptions, type OpenedAgent } from '@ctxkit/core';

export type { AgentSource };

/** The agent to use and how to release what was created for it. */
export type ResolvedAgent = OpenedAgent;

/** The agent id of the agent declared from a plugin id. */
export const DEFAULT_LANGCHAIN_AGENT_ID = 'langchain-agent';

/** How the adapter names itself in `AgentSourceError`s, and the agent id it declares. */
export const LANGCHAIN_AGENT_SOURCE: OpenAgentOptions = {
  adapter: 'ctxkitMiddleware',
  defaultAgentId: DEFAULT_LANGCHAIN_AGENT_ID,
  example: "ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } })",
};

/**
 * The agent whose strategy the middleware uses: the given one, or one loaded from a manifest or declared
 * from a plugin id (core's `openAgent`).
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND` listing the installed ids, `CTXKIT_CONFIG_INVALID`, `CTXKIT_MANIFEST_INVALID` ...)
 */
export function resolveAgent(options: AgentSource): Promise<ResolvedAgent> {
  return openAgent(options, LANGCHAIN_AGENT_SOURCE);
}
