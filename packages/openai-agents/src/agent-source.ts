import type { AgentSource, OpenAgentOptions } from '@ctxkit/core';

export type { AgentSource };

/** The agent id of the agent declared from a plugin id. */
export const DEFAULT_OPENAI_AGENTS_AGENT_ID = 'openai-agents-agent';

/** How the adapter names itself in `AgentSourceError`s, and the agent id it declares. */
export const OPENAI_AGENTS_AGENT_SOURCE: OpenAgentOptions = {
  adapter: 'CtxkitSession',
  defaultAgentId: DEFAULT_OPENAI_AGENTS_AGENT_ID,
  example: "new CtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } })",
};
