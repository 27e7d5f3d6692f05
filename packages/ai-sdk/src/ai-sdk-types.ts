import type {
  AssistantModelMessage,
  LanguageModelMiddleware,
  ModelMessage,
  ToolModelMessage,
  ToolResultPart,
  UserModelMessage,
} from 'ai';

/**
 * The AI SDK shapes the adapter works with, named once. Only types: the adapter loads nothing of the
 * `ai` package at run time (it is the caller's, passed in as models, tools and messages) but the
 * embedder's `embedMany`.
 */

/** A part of a user message given as an array. */
export type UserPart = Exclude<UserModelMessage['content'], string>[number];

/** A part of an assistant message given as an array. */
export type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

/** A part of a tool message. */
export type ToolPart = ToolModelMessage['content'][number];

/** What a tool result part carries (`text`, `json`, `error-text`, `error-json`, `execution-denied`, `content`). */
export type ToolResultOutput = ToolResultPart['output'];

/** The options of one language-model call, as a middleware sees them (the provider-level request). */
export type LanguageModelCallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];

/** The provider-level prompt: system, user, assistant and tool messages whose contents are always part arrays. */
export type LanguageModelPrompt = LanguageModelCallOptions['prompt'];

/** One message of a {@link LanguageModelPrompt}. */
export type LanguageModelMessage = LanguageModelPrompt[number];

/** A tool of a language-model call: a function tool (JSON Schema input) or a provider tool. */
export type LanguageModelTool = NonNullable<LanguageModelCallOptions['tools']>[number];

/** A function tool of a language-model call. */
export type LanguageModelFunctionTool = Extract<LanguageModelTool, { type: 'function' }>;

/** The result of a non-streaming language-model call. */
export type LanguageModelGenerateResult = Awaited<
  ReturnType<Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0]['doGenerate']>
>;

/** The result of a streaming language-model call. */
export type LanguageModelStreamResult = Awaited<
  ReturnType<Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0]['doStream']>
>;

/** One part of a language-model stream. */
export type LanguageModelStreamPart =
  LanguageModelStreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** Messages in either form: the AI SDK's `ModelMessage`s, or a provider-level prompt (a subset of them). */
export type AnyModelMessages = ReadonlyArray<ModelMessage> | LanguageModelPrompt;
