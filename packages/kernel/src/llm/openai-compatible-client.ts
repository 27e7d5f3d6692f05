import { type LLMCompletion, type LLMCompletionRequest, LLMResponseError, type ProviderUsage } from '@ctxkit/core';
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

import { fromOpenAIChatMessage, toOpenAIChatMessages, toOpenAIChatTools } from '../providers/openai-chat-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import { assistantCompletion } from './assistant-completion';
import { LastTurnRequests } from './last-turn-requests';
import { createOpenAISdkConnection } from './openai-sdk-connection';
import type { RetryOptions } from './retry-options';
import { SdkLLMClient } from './sdk-llm-client';

/** Options of {@link OpenAICompatibleClient}. Every field falls back to its environment variable. */
export interface OpenAICompatibleClientOptions {
  /**
   * Base URL up to and including the version segment: `http://localhost:11434/v1` (Ollama),
   * `http://localhost:8080/v1` (llama.cpp server), `http://localhost:8000/v1` (vLLM).
   * @default env OPENAI_BASE_URL, else https://api.openai.com/v1
   */
  baseURL?: string;
  /**
   * Bearer key; optional for local servers (no `authorization` header is sent without one). @default env OPENAI_API_KEY
   */
  apiKey?: string;
  /** Model used when a request names none. @default env OPENAI_MODEL, else gpt-4o-mini */
  model?: string;
  /** Per-attempt timeout (a timed-out attempt is retried). @default 60000 */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * Name of the output limit field. OpenAI's current models want `max_completion_tokens`; local
   * servers read `max_tokens`.
   * @default 'max_completion_tokens' for api.openai.com, else 'max_tokens'
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Send the request's `cacheKey` as `prompt_cache_key`, so that OpenAI routes a conversation's
   * requests to the same prompt cache. Off for other servers, which may refuse unknown fields.
   * @default true for api.openai.com, else false
   */
  sendPromptCacheKey?: boolean;
  /**
   * Sent as `prompt_cache_options` (`mode`: `'implicit'` or `'explicit'` breakpoints, `ttl`), which
   * OpenAI reads on gpt-5.6 and later models. Not sent when absent: older models and other servers
   * may refuse it.
   */
  promptCacheOptions?: { mode?: 'implicit' | 'explicit'; ttl?: '30m' };
  /** Sent as `prompt_cache_retention` (`'in_memory'` or `'24h'`, the maximum retention). Not sent when absent. */
  promptCacheRetention?: 'in_memory' | '24h';
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Client name shown in reports. @default 'openai-compatible:<model>' */
  name?: string;
  /** Environment to read defaults from (also `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`). @default process.env */
  env?: Record<string, string | undefined>;
  /** fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * An `ILLMClient` for OpenAI chat completions on the official `openai` SDK: OpenAI itself and
 * every server that speaks the same protocol (Ollama, llama.cpp server, vLLM, OpenRouter). Each
 * request is checked with `validateForProvider('openai-chat', …)` before it is sent; the SDK runs
 * it with the timeout and retries 408/409/429/5xx answers, network errors and timed-out attempts
 * with backoff, honouring `retry-after`. It remembers each conversation's last turn (by
 * `cacheKey`): a helper request with a `continuation` goes out as that turn's request continued,
 * reading its cached prompt.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction for api.openai.com
 * without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload the provider would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (missing choices, an empty answer, a
 * malformed body)
 * @see docs/08-kernel.md
 */
export class OpenAICompatibleClient extends SdkLLMClient<OpenAICompatibleClientOptions> {
  /** Requests go out in the chat completions format. */
  readonly provider = 'openai-chat';
  private readonly sdk: OpenAI;
  private readonly sdkClass: typeof OpenAI;
  private readonly lastTurns = new LastTurnRequests<ChatCompletionCreateParamsNonStreaming>();

  constructor(options: OpenAICompatibleClientOptions = {}) {
    const connection = createOpenAISdkConnection(options, 'OpenAICompatibleClient');
    const defaultModel = options.model ?? ((options.env ?? process.env).OPENAI_MODEL || 'gpt-4o-mini');
    const name = options.name ?? `openai-compatible:${defaultModel}`;
    super(options, { name, defaultModel, baseURL: connection.baseURL });
    this.sdk = connection.sdk;
    this.sdkClass = connection.errors;
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    validateForProvider('openai-chat', request.messages);
    const model = request.model ?? this.defaultModel;
    const body = this.continuedBody(request, model) ?? this.turnBody(request, model);
    // Output and cache settings follow the messages, so that a helper request continuing this one starts with its
    // bytes.
    if (request.maxOutputTokens !== undefined) body[this.maxTokensField()] = request.maxOutputTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.responseFormat === 'json') body.response_format = { type: 'json_object' };
    if (request.cacheKey !== undefined && (this.options.sendPromptCacheKey ?? this.isOpenAI()))
      body.prompt_cache_key = request.cacheKey;
    if (this.options.promptCacheOptions !== undefined)
      body.prompt_cache_options = { ...this.options.promptCacheOptions };
    if (this.options.promptCacheRetention !== undefined)
      body.prompt_cache_retention = this.options.promptCacheRetention;
    this.lastTurns.record(request, body);

    const { reply, details } = await this.send<{ choices?: unknown; usage?: ProviderUsage; model?: unknown }>(
      request,
      model,
      {
        url: `${this.baseURL}/chat/completions`,
        errors: this.sdkClass,
        create: (fetch, sendOptions) => this.sdk.withOptions({ fetch }).chat.completions.create(body, sendOptions),
      },
    );
    if (!Array.isArray(reply.choices) || reply.choices.length === 0)
      throw new LLMResponseError('the answer has no choices', details);
    const choice = reply.choices[0] as { message?: unknown; finish_reason?: unknown } | null;
    if (choice === null || typeof choice !== 'object' || choice.message === undefined) {
      throw new LLMResponseError('choices[0] has no message', details);
    }
    return assistantCompletion(
      {
        message: fromOpenAIChatMessage(choice.message, this.name),
        usage: reply.usage,
        model: reply.model,
        finishReason: choice.finish_reason,
      },
      model,
      details,
    );
  }

  /** A request's own body: model, tools, then messages. */
  private turnBody(request: LLMCompletionRequest, model: string): ChatCompletionCreateParamsNonStreaming {
    const body = { model } as ChatCompletionCreateParamsNonStreaming;
    if (request.tools && request.tools.length > 0) body.tools = toOpenAIChatTools(request.tools);
    // The canonical message shape is the chat-completions wire shape (see toOpenAIChatMessages).
    body.messages = toOpenAIChatMessages(request.messages) as ChatCompletionMessageParam[];
    return body;
  }

  /**
   * A helper request as the conversation's last turn continued: that body's model, tools and
   * message objects, then the helper's messages. Undefined (the request goes out on its own) when
   * no turn was sent under its key or it asks for another model.
   */
  private continuedBody(
    request: LLMCompletionRequest,
    model: string,
  ): ChatCompletionCreateParamsNonStreaming | undefined {
    const last = this.lastTurns.continued(request);
    if (!last || last.model !== model) return undefined;
    validateForProvider('openai-chat', request.continuation!);
    const body = { model: last.model } as ChatCompletionCreateParamsNonStreaming;
    if (last.tools !== undefined) body.tools = last.tools;
    body.messages = [
      ...last.messages,
      ...(toOpenAIChatMessages(request.continuation!) as ChatCompletionMessageParam[]),
    ];
    return body;
  }

  private maxTokensField(): 'max_tokens' | 'max_completion_tokens' {
    return this.options.maxTokensField ?? (this.isOpenAI() ? 'max_completion_tokens' : 'max_tokens');
  }

  private isOpenAI(): boolean {
    return this.baseURL.startsWith('https://api.openai.com');
  }
}
