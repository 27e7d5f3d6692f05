import {
  LLMNotConfiguredError,
  LLMResponseError,
  toTokenUsage,
  type LLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type ProviderUsage,
} from '@ctxkit/core';
import { fromOpenAIChatMessage, toOpenAIChatMessages, toOpenAIChatTools } from '../providers/openai-chat-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import type { RetryOptions } from './retry-policy';
import { sendJsonRequest } from './send-json-request';

/** The public OpenAI endpoint, used when no base URL is given. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Options of {@link OpenAICompatibleClient}. Every field falls back to its environment variable. */
export interface OpenAICompatibleClientOptions {
  /**
   * Base URL up to and including the version segment: `http://localhost:11434/v1` (Ollama),
   * `http://localhost:8080/v1` (llama.cpp server), `http://localhost:8000/v1` (vLLM).
   * @default env OPENAI_BASE_URL, else https://api.openai.com/v1
   */
  baseURL?: string;
  /** Bearer key; optional for local servers. @default env OPENAI_API_KEY */
  apiKey?: string;
  /** Model used when a request names none. @default env OPENAI_MODEL, else gpt-4o-mini */
  model?: string;
  /** Per-attempt timeout. @default 60000 */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * Name of the output limit field. OpenAI's current models want `max_completion_tokens`; local
   * servers read `max_tokens`.
   * @default 'max_completion_tokens' for api.openai.com, else 'max_tokens'
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Client name shown in reports. @default 'openai-compatible:<model>' */
  name?: string;
  /** Environment to read defaults from. @default process.env */
  env?: Record<string, string | undefined>;
  /** fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * An `ILLMClient` for OpenAI chat completions over `fetch`: OpenAI itself and every server that
 * speaks the same protocol (Ollama, llama.cpp server, vLLM, OpenRouter). Each request is checked
 * with `validateForProvider('openai-chat', …)` before it is sent, runs with a timeout, and is
 * retried with backoff on 429/5xx and network errors.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction for api.openai.com
 * without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload the provider would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (missing choices, an empty answer, a
 * malformed body)
 * @see docs/08-kernel.md
 */
export class OpenAICompatibleClient implements LLMClient {
  readonly name: string;
  readonly defaultModel: string;
  readonly offline = false;
  readonly baseURL: string;
  private readonly apiKey: string | undefined;
  private readonly options: OpenAICompatibleClientOptions;

  constructor(options: OpenAICompatibleClientOptions = {}) {
    const env = options.env ?? process.env;
    this.options = options;
    this.baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.apiKey = options.apiKey ?? (env.OPENAI_API_KEY || undefined);
    this.defaultModel = options.model ?? (env.OPENAI_MODEL || 'gpt-4o-mini');
    this.name = options.name ?? `openai-compatible:${this.defaultModel}`;
    if (this.apiKey === undefined && /^https:\/\/api\.openai\.com/.test(this.baseURL)) {
      throw new LLMNotConfiguredError('OpenAICompatibleClient for api.openai.com (no OPENAI_API_KEY)');
    }
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    validateForProvider('openai-chat', request.messages);
    const model = request.model ?? this.defaultModel;
    const body: Record<string, unknown> = { model, messages: toOpenAIChatMessages(request.messages) };
    if (request.tools && request.tools.length > 0) body.tools = toOpenAIChatTools(request.tools);
    if (request.maxOutputTokens !== undefined) {
      const field = this.options.maxTokensField ?? (this.baseURL.startsWith('https://api.openai.com') ? 'max_completion_tokens' : 'max_tokens');
      body[field] = request.maxOutputTokens;
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.responseFormat === 'json') body.response_format = { type: 'json_object' };

    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(this.options.headers ?? {}) };
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;

    const { json, attempts, status } = await sendJsonRequest({
      client: this.name,
      model,
      url: `${this.baseURL}/chat/completions`,
      headers,
      body,
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 60_000,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });

    const details = { client: this.name, model, status, attempts };
    const answer = json as { choices?: unknown; usage?: ProviderUsage; model?: unknown } | null;
    if (answer === null || typeof answer !== 'object') throw new LLMResponseError('the body is not a JSON object', details);
    if (!Array.isArray(answer.choices) || answer.choices.length === 0) throw new LLMResponseError('the answer has no choices', details);
    const choice = answer.choices[0] as { message?: unknown; finish_reason?: unknown };
    if (choice === null || typeof choice !== 'object' || choice.message === undefined) {
      throw new LLMResponseError('choices[0] has no message', details);
    }
    const message = fromOpenAIChatMessage(choice.message, this.name);
    const text = message.content ?? '';
    if (text.trim() === '' && !(message.tool_calls && message.tool_calls.length > 0)) {
      throw new LLMResponseError('the answer is empty (no text and no tool calls)', { ...details, finishReason: choice.finish_reason });
    }
    const completion: LLMCompletion = {
      message,
      text,
      usage: toTokenUsage(answer.usage),
      model: typeof answer.model === 'string' ? answer.model : model,
    };
    if (typeof choice.finish_reason === 'string') completion.finishReason = choice.finish_reason;
    return completion;
  }
}
