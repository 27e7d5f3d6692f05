import type { AssistantMessage, ChatMessage } from './chat-message';
import type { TokenUsage } from './token-usage';
import type { ToolDefinition } from './tool-definition';

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
  /**
   * A helper request (a summary, an extraction, a compaction) that may go out as the conversation's
   * last request with these messages appended, so that it reads the conversation's cached prompt.
   * A client that remembers the last request sent under the same `cacheKey` sends that request's
   * model, system prompt, tools and messages, serialized as they were, then these messages, with
   * this request's own output settings. A client that remembers none, or cannot, sends `messages`
   * as they are: they stay the complete request.
   */
  continuation?: ChatMessage[];
  /**
   * Ask the provider to compact `messages` itself (a client whose `providerCompaction` is set):
   * Anthropic's compaction request, OpenAI Responses' compaction trigger. The answer's message holds
   * no text: its `reasoning` carries the provider's compaction item (an Anthropic `compaction` block
   * with its summary and signature, an OpenAI `compaction` item with its encrypted content), which
   * later requests send, unchanged, in place of the messages it summarizes. A client that cannot
   * compact ignores the field and answers as to any request; a caller checks the answer with
   * `providerCompactionItem`.
   */
  providerCompaction?: ProviderCompactionRequest;
}

/** What a provider compaction request asks for. */
export interface ProviderCompactionRequest {
  /**
   * Instructions for the provider's summary (Anthropic: they replace the server's own prompt;
   * OpenAI takes none and ignores them). Absent: the provider's own.
   */
  instructions?: string;
}

/** The provider-native compactions a client can ask for (`ILLMClient.providerCompaction`). */
export type ProviderCompactionKind = 'anthropic' | 'openai-responses';

/** Why a provider read less of the prompt from its cache than it could have, as the provider reported it. */
export interface CacheMissReport {
  /**
   * The provider's reason, as it names it (Anthropic: `messages_changed`, `system_changed`,
   * `tools_changed`, `model_changed`, `previous_message_not_found`, `unavailable`).
   */
  reason: string;
  /** The provider's estimate of the input tokens that would have been read from the cache. */
  missedTokens?: number;
}

/** One completion answer. */
export interface LLMCompletion {
  message: AssistantMessage;
  /** The text of `message.content` ('' when none). */
  text: string;
  usage: TokenUsage;
  model: string;
  finishReason?: string;
  /** The provider's diagnosis of a prompt-cache miss, where it returns one. */
  cacheMiss?: CacheMissReport;
}

/**
 * The wire formats a conversation can be sent in, each with its own validity rules:
 * - `openai-chat`: OpenAI chat completions (also Ollama, llama.cpp server, vLLM);
 * - `openai-responses`: OpenAI Responses API input items;
 * - `anthropic`: Anthropic Messages API.
 */
export type ProviderName = 'openai-chat' | 'openai-responses' | 'anthropic';

/**
 * "Complete these messages with this model." Every strategy or kernel that needs a model gets one
 * by injection (token `ILLMClient`). Implementations throw `LLMError` subclasses on failure.
 */
export interface ILLMClient {
  /** Human-readable name, shown wherever the client's answers are used (e.g. `openai:gpt-4o-mini`). */
  readonly name: string;
  /**
   * The wire format the client sends requests in, which decides the rules a payload is checked
   * against before it is sent (the kernel's clients declare theirs). Absent: `openai-chat`, the
   * format a client with no declaration is taken to speak.
   */
  readonly provider?: ProviderName;
  /** The model used when a request names none. */
  readonly defaultModel: string;
  /**
   * True for clients that are not a language model (the offline summarizer/extractor fallbacks,
   * scripted test clients). Reports name them as such.
   */
  readonly offline: boolean;
  /**
   * The provider-native compaction this client can ask for (`LLMCompletionRequest.providerCompaction`);
   * absent when it has none. A wrapper of a client passes its value on.
   */
  readonly providerCompaction?: ProviderCompactionKind;
  complete(request: LLMCompletionRequest): Promise<LLMCompletion>;
}
