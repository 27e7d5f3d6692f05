import {
  LLMNotConfiguredError,
  LLMResponseError,
  toTokenUsage,
  type LLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type ProviderUsage,
} from '@ctxkit/core';
import { fromAnthropicContent, toAnthropicMessages, toAnthropicTools } from '../providers/anthropic-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import type { RetryOptions } from './retry-policy';
import { sendJsonRequest } from './send-json-request';

/** The public Anthropic endpoint, used when no base URL is given. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The `anthropic-version` header sent by default. */
export const ANTHROPIC_API_VERSION = '2023-06-01';

/** Options of {@link AnthropicClient}. Every field falls back to its environment variable. */
export interface AnthropicClientOptions {
  /** @default env ANTHROPIC_API_KEY (required) */
  apiKey?: string;
  /** @default env ANTHROPIC_BASE_URL, else https://api.anthropic.com */
  baseURL?: string;
  /** @default env ANTHROPIC_MODEL, else claude-haiku-4-5 */
  model?: string;
  /** `max_tokens` when a request gives no `maxOutputTokens` (the API requires one). @default 4096 */
  defaultMaxOutputTokens?: number;
  /** @default '2023-06-01' */
  apiVersion?: string;
  /** Per-attempt timeout. @default 60000 */
  timeoutMs?: number;
  retry?: RetryOptions;
  headers?: Record<string, string>;
  /** @default 'anthropic:<model>' */
  name?: string;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * An `ILLMClient` for the Anthropic Messages API over `fetch`: the system prompt goes apart, tool
 * calls and results become `tool_use` / `tool_result` blocks (ids made unique where the history
 * reuses one), thinking blocks travel with their `tool_use`. Every request is checked with
 * `validateForProvider('anthropic', …)` first, runs with a timeout and is retried on 429/5xx/529
 * and network errors.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload Anthropic would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (no content, an empty answer, a malformed body)
 * @see docs/08-kernel.md
 */
export class AnthropicClient implements LLMClient {
  readonly name: string;
  readonly defaultModel: string;
  readonly offline = false;
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly options: AnthropicClientOptions;

  constructor(options: AnthropicClientOptions = {}) {
    const env = options.env ?? process.env;
    this.options = options;
    const apiKey = options.apiKey ?? (env.ANTHROPIC_API_KEY || undefined);
    if (apiKey === undefined) throw new LLMNotConfiguredError('AnthropicClient (no ANTHROPIC_API_KEY)');
    this.apiKey = apiKey;
    this.baseURL = (options.baseURL ?? env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.defaultModel = options.model ?? (env.ANTHROPIC_MODEL || 'claude-haiku-4-5');
    this.name = options.name ?? `anthropic:${this.defaultModel}`;
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    validateForProvider('anthropic', request.messages);
    const model = request.model ?? this.defaultModel;
    const conversation = toAnthropicMessages(request.messages);
    const body: Record<string, unknown> = {
      model,
      max_tokens: request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096,
      messages: conversation.messages,
    };
    if (conversation.system !== undefined) body.system = conversation.system;
    if (request.tools && request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
    if (request.temperature !== undefined) body.temperature = request.temperature;

    const { json, attempts, status } = await sendJsonRequest({
      client: this.name,
      model,
      url: `${this.baseURL}/v1/messages`,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-api-key': this.apiKey,
        'anthropic-version': this.options.apiVersion ?? ANTHROPIC_API_VERSION,
        ...(this.options.headers ?? {}),
      },
      body,
      timeoutMs: request.timeoutMs ?? this.options.timeoutMs ?? 60_000,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });

    const details = { client: this.name, model, status, attempts };
    const answer = json as { content?: unknown; usage?: ProviderUsage; model?: unknown; stop_reason?: unknown; type?: unknown } | null;
    if (answer === null || typeof answer !== 'object') throw new LLMResponseError('the body is not a JSON object', details);
    if (answer.type === 'error') throw new LLMResponseError('the body is an error object', details);
    if (!Array.isArray(answer.content)) throw new LLMResponseError('the answer has no content array', details);
    const message = fromAnthropicContent(answer.content, this.name);
    const text = message.content ?? '';
    if (text.trim() === '' && !(message.tool_calls && message.tool_calls.length > 0)) {
      throw new LLMResponseError('the answer is empty (no text and no tool calls)', { ...details, finishReason: answer.stop_reason });
    }
    const completion: LLMCompletion = {
      message,
      text,
      usage: toTokenUsage(answer.usage),
      model: typeof answer.model === 'string' ? answer.model : model,
    };
    if (typeof answer.stop_reason === 'string') completion.finishReason = answer.stop_reason;
    return completion;
  }
}
