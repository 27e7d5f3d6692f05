/**
 * @ctxkit/ai-sdk: ctxkit context strategies for the Vercel AI SDK. Message conversion between the
 * AI SDK's `ModelMessage` and ctxkit's `ChatMessage`, a language-model middleware
 * (`ctxkitMiddleware`) that runs an agent's strategy on every step of `generateText` / `streamText`, the
 * strategy's own tools as AI SDK tools, a ctxkit LLM client on an AI SDK language model and a text
 * embedder on an AI SDK embedding model.
 * Explicit named exports only.
 * @see docs/adapters/ai-sdk.md
 */
export type { AiSdkContextOptions, RunEndEvent } from './ai-sdk-context';
export { AiSdkContext, createAiSdkContext, DEFAULT_AI_SDK_AGENT_ID } from './ai-sdk-context';
export type { ComposedMessages, ComposeMessagesInput } from './compose-messages';
export type { RagContextSource } from './compose-settings';
export type { ToolOwner } from './contributed-ai-tools';
export { asInputSchema, contributedAiTools } from './contributed-ai-tools';
export type { CtxkitLanguageModelMiddleware, CtxkitMiddlewareOptions } from './ctxkit-middleware';
export { ctxkitMiddleware } from './ctxkit-middleware';
export type { EmbeddingModelEmbedderOptions } from './embedding-model-embedder';
export { AI_SDK_REASONING_PROVIDER } from './kept-assistant-part';
export type { CallableLanguageModel, LanguageModelClientOptions } from './language-model-llm-client';
export { llmClientFromLanguageModel } from './language-model-llm-client';
export { toChatMessages } from './to-chat-messages';
export { toLanguageModelPrompt, toModelMessages } from './to-model-messages';
export { inputJsonSchema, toolSetDefinitions } from './tool-definitions';
/**
 * A ctxkit `ITextEmbedder` on an AI SDK embedding model (through `embedMany`); give it to
 * `createContextRuntime({ embedder })` so that recall finds earlier turns by meaning.
 */
export { embedderFromEmbeddingModel } from './embedding-model-embedder';
/** The one options error of every ctxkit framework adapter (`CTXKIT_CONFIG_INVALID`), from `@ctxkit/core`. */
export { ContributedToolsMissingError } from './errors/contributed-tools-missing-error';
export { LanguageModelClientError } from './errors/language-model-client-error';
export { ModelMessageError } from './errors/model-message-error';
export { AgentSourceError } from '@ctxkit/core';
