import type { AssistantMessage, ChatMessage } from './chat-message';
import type { ToolDefinition } from './tool-definition';
import type { TokenUsage } from './token-usage';

/** One completion request. Strategies call it without tools (summaries, extraction, compaction). */
export interface LLMCompletionRequest {
  /** Model to use; the client's default model when absent. */
  model?: string;
  messages: ChatMessage[];
  /** `null` or absent: the model is called without tools. */
  tools?: ToolDefinition[] | null;
  maxOutputTokens?: number;
  temperature?: number;
  /** Ask for a JSON answer where the provider supports it. */
  responseFormat?: 'text' | 'json';
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The conversation the request belongs to (the kernel sends `<agentId>:<sessionId>`), so that a
   * provider's prompt cache can route requests sharing a prefix together (OpenAI's
   * `prompt_cache_key`). Clients without such a parameter ignore it.
   */
  cacheKey?: string;
}

/** One completion answer. */
export interface LLMCompletion {
  message: AssistantMessage;
  /** The text of `message.content` ('' when none). */
  text: string;
  usage: TokenUsage;
  model: string;
  finishReason?: string;
}

/**
 * "Complete these messages with this model." Every strategy or kernel that needs a model gets one
 * by injection (token `ILLMClient`). Implementations throw `LLMError` subclasses on failure.
 */
export interface ILLMClient {
  /** Human-readable name, shown wherever the client's answers are used (e.g. `openai:gpt-4o-mini`). */
  readonly name: string;
  /** The model used when a request names none. */
  readonly defaultModel: string;
  /**
   * True for clients that are not a language model (the offline summarizer/extractor fallbacks,
   * scripted test clients). Reports name them as such.
   */
  readonly offline: boolean;
  complete(request: LLMCompletionRequest): Promise<LLMCompletion>;
}
