/**
 * @ctxkit/openai-agents: ctxkit context strategies for the OpenAI Agents SDK. A `Session` that
 * decorates a stored session (the SDK's `MemorySession`, yours, or the ctxkit store) and composes
 * every model request of a run with an agent's strategy through the model it wraps, the strategy's
 * own tools as Agents SDK function tools, and the conversion between Agents SDK input items and
 * ctxkit messages.
 * Explicit named exports only.
 * @see docs/adapters/openai-agents.md
 */
export type { OpenAIAgentsChatMessage, OpenAIAgentsOrigin } from './agents-origin';
export { OPENAI_AGENTS_CARRIED_PROVIDER, OPENAI_REASONING_PROVIDER } from './agents-origin';
export { AgentInputItemError } from './errors/agent-input-item-error';
export { ChatMessageItemError } from './errors/chat-message-item-error';
export { toAgentInputItems } from './to-agent-input-items';
export { toChatMessages } from './to-chat-messages';
/** The one options error of every ctxkit framework adapter (`CTXKIT_CONFIG_INVALID`), from `@ctxkit/core`. */
export type { AgentSource } from './agent-source';
export { DEFAULT_OPENAI_AGENTS_AGENT_ID } from './agent-source';
export { SESSION_ITEMS_STORE_NAME } from './agent-store-session';
export type { ContributedToolsOwner } from './contributed-agents-tools';
export { contributedAgentsTools } from './contributed-agents-tools';
export type { CtxkitSessionOptions, CtxkitSessionSettings } from './ctxkit-session';
export { createCtxkitSession, CtxkitSession } from './ctxkit-session';
export type { SessionTool } from './tool-definitions';
export { toToolDefinitions } from './tool-definitions';
export { AgentSourceError } from '@ctxkit/core';
