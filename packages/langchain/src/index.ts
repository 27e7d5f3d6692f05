/**
 * @ctxkit/langchain: ctxkit for LangChain.js v1. A `createAgent` middleware that composes each model
 * call with an agent's context strategy, the strategy's contributed tools as LangChain tools, the
 * conversion between LangChain messages and ctxkit messages, and the chat model and embeddings as
 * ctxkit's LLM client and text embedder. Explicit named exports only.
 */

// message conversion
export { fromChatMessage, fromChatMessages } from './from-chat-messages';
export { HistoryConverter } from './history-converter';
export type {
  LangChainChatMessage,
  LangChainMessageFields,
  LangChainMessageType,
  LangChainOrigin,
} from './langchain-origin';
export { toChatMessage, toChatMessages } from './to-chat-messages';
export { toToolDefinition } from './tool-definitions';

// middleware and contributed tools
export type { AgentSource } from './agent-source';
export { DEFAULT_LANGCHAIN_AGENT_ID } from './agent-source';
export { contributedLangChainTools } from './contributed-tools';
export type { CtxkitMiddleware, CtxkitMiddlewareOptions, RagContextInput } from './ctxkit-middleware';
export { createCtxkitMiddleware, ctxkitMiddleware } from './ctxkit-middleware';
export type { LangGraphRun, SessionIdResolver } from './session-id';
export { threadSessionId } from './session-id';

// the chat model as ctxkit's LLM client (summaries, extraction, compaction)
export type { ChatModelClientOptions } from './chat-model-llm-client';
export { llmClientFromChatModel } from './chat-model-llm-client';

// LangChain embeddings as ctxkit's text embedder (recall by meaning)
export type { LangChainEmbedderOptions } from './embeddings-embedder';
/**
 * A ctxkit `ITextEmbedder` on any LangChain `Embeddings` (through `embedDocuments`); give it to
 * `createContextRuntime({ embedder })` so that recall finds earlier turns by meaning.
 */
export { embedderFromLangChain } from './embeddings-embedder';

// errors
export { LangChainMessageError, SessionIdError } from './langchain-errors';
/** The one options error of every ctxkit framework adapter (`CTXKIT_CONFIG_INVALID`), from `@ctxkit/core`. */
export { AgentSourceError } from '@ctxkit/core';
