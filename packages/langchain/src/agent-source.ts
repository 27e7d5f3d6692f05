import type { AgentSource, OpenAgentOptions } from '@ctxkit/core';

export type { AgentSource };

/** The agent id of the agent declared from a plugin id. */
export const DEFAULT_LANGCHAIN_AGENT_ID = 'langchain-agent';

/** How the adapter names itself in `AgentSourceError`s, and the agent id it declares. */
export const LANGCHAIN_AGENT_SOURCE: OpenAgentOptions = {
  adapter: 'ctxkitMiddleware',
  defaultAgentId: DEFAULT_LANGCHAIN_AGENT_ID,
  example: "ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } })",
};
