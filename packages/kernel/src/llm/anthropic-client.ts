import { LLMNotConfiguredError, LLMResponseError, type LLMCompletion, type LLMCompletionRequest, type ProviderUsage } from '@ctxkit/core';
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { fromAnthropicContent, toAnthropicMessages, toAnthropicTools } from '../providers/anthropic-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import { assistantCompletion } from './assistant-completion';
import type { RetryOptions } from './retry-options';
import { SdkLLMClient } from './sdk-llm-client';

/** The public Anthropic endpoint, used when no base URL is given. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The `anthropic-version` header sent by default: the Messages API version ctxkit's adapter writes. */
export const ANTHROPIC_API_VERSION = '2023-06-01';

/** Options of {@link AnthropicClient}. Every field falls back to its environment variable. */
export interface AnthropicClientOptions {
  /** @default env ANTHROPIC_API_KEY (required) */
  apiKey?: string;
  /** @default env ANTHROPIC_BASE_URL, else https://api.anthropic.com */
  baseURL?: string;
  /** @default env ANTHROPIC_MODEL, else claude-haiku-4-5 */
  model?: string;
  /**
   * Mark the end of the system prompt and the end of the newest message with
   * `cache_control: { type: 'ephemeral' }`, so that the next request, which repeats this one and
   * appends, reads the prompt from Anthropic's cache (billed at a tenth of the input price). Each
   * system message is a text block of its own, and the first (the agent's prompt) is marked too: a
   * system message after it that changed (the dynamic context, a summary sent as a system message)
   * leaves the prompt before it cached.
   * @default true
   */
  promptCaching?: boolean;
  /** `max_tokens` when a request gives no `maxOutputTokens` (the API requires one). @default 4096 */
  defaultMaxOutputTokens?: number;
  /** @default '2023-06-01' */
  apiVersion?: string;
  /** Per-attempt timeout (a timed-out attempt is retried). @default 60000 */
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
 * The SDK's client class, loaded when the first client is made: importing the kernel (or the CLI)
 * does not load the SDK's few hundred modules.
 */
function anthropicSdk(): typeof Anthropic {
  return (require('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk')).default;
}

/**
 * An `ILLMClient` for the Anthropic Messages API on the official `@anthropic-ai/sdk`: the system
 * prompt goes apart, tool calls and results become `tool_use` / `tool_result` blocks (ids made
 * unique where the history reuses one), thinking blocks travel with their `tool_use`. Every request
 * is checked with `validateForProvider('anthropic', …)` first; the SDK runs it with the timeout and
 * retries 408/409/429/5xx (529 included) answers, network errors and timed-out attempts with
 * backoff, honouring `retry-after`.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload Anthropic would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (no content, an empty answer, a malformed body)
 * @see docs/08-kernel.md
 */
export class AnthropicClient extends SdkLLMClient<AnthropicClientOptions> {
  private readonly sdk: Anthropic;
  private readonly sdkClass: typeof Anthropic;

  constructor(options: AnthropicClientOptions = {}) {
    const env = options.env ?? process.env;
    const apiKey = options.apiKey ?? (env.ANTHROPIC_API_KEY || undefined);
    if (apiKey === undefined) throw new LLMNotConfiguredError('AnthropicClient (no ANTHROPIC_API_KEY)');
    const defaultModel = options.model ?? (env.ANTHROPIC_MODEL || 'claude-haiku-4-5');
    super(options, {
      name: options.name ?? `anthropic:${defaultModel}`,
      defaultModel,
      baseURL: (options.baseURL ?? env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, ''),
    });
    this.sdkClass = anthropicSdk();
    this.sdk = new this.sdkClass({
      apiKey,
      baseURL: this.baseURL,
      ...this.sdkAttemptLimits(),
      defaultHeaders: { 'anthropic-version': options.apiVersion ?? ANTHROPIC_API_VERSION, ...(options.headers ?? {}) },
    });
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    validateForProvider('anthropic', request.messages);
    const model = request.model ?? this.defaultModel;
    const conversation = toAnthropicMessages(request.messages);
    // `temperature` is no longer in the SDK's request type; the Messages API version sent
    // (`apiVersion`) still takes it, and the SDK sends the body as it is given.
    const body: MessageCreateParamsNonStreaming & { temperature?: number } = {
      model,
      max_tokens: request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096,
      // ctxkit's adapter writes the wire shape; its block types are looser than the SDK's (a
      // thinking block's signature is optional in ctxkit, an image's media type any string).
      messages: conversation.messages as MessageParam[],
    };
    const caching = this.options.promptCaching ?? true;
    if (conversation.system !== undefined) body.system = caching ? cachedSystemBlocks(conversation.system, conversation.systemParts) : conversation.system;
    if (caching) markCacheBreakpoint(body.messages);
    if (request.tools && request.tools.length > 0) body.tools = toAnthropicTools(request.tools) as ToolUnion[];
    if (request.temperature !== undefined) body.temperature = request.temperature;

    const { reply, details } = await this.send<{ content?: unknown; usage?: ProviderUsage; model?: unknown; stop_reason?: unknown; type?: unknown }>(request, model, {
      url: `${this.baseURL}/v1/messages`,
      errors: this.sdkClass,
      create: (fetch, sendOptions) => this.sdk.withOptions({ fetch }).messages.create(body, sendOptions),
    });
    if (reply.type === 'error') throw new LLMResponseError('the body is an error object', details);
    if (!Array.isArray(reply.content)) throw new LLMResponseError('the answer has no content array', details);
    return assistantCompletion(
      { message: fromAnthropicContent(reply.content, this.name), usage: reply.usage, model: reply.model, finishReason: reply.stop_reason },
      model,
      details,
    );
  }
}

/**
 * The system prompt as text blocks, one per system message, with a cache breakpoint on the first
 * (the agent's own prompt, which stays the same while a summary or a state after it changes) and on
 * the last: the prompt is found in the cache up to the first block that changed. With the breakpoint
 * on the newest message that is three of the four the API allows.
 */
function cachedSystemBlocks(system: string, parts: ReadonlyArray<string>): TextBlockParam[] {
  const texts = parts.length > 0 ? parts : [system];
  return texts.map((text, index) => (index === 0 || index === texts.length - 1 ? { type: 'text', text, cache_control: { type: 'ephemeral' } } : { type: 'text', text }));
}

/**
 * Puts a cache breakpoint on the last block of the last message (a copy of that message; the rest
 * are shared): the prompt up to there is cached, and the next request reads it. Thinking blocks
 * cannot carry one; a message that ends with one gets none.
 */
function markCacheBreakpoint(messages: MessageParam[]): void {
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content) || last.content.length === 0) return;
  const blocks = last.content.slice();
  const final = blocks[blocks.length - 1]!;
  if (final.type === 'thinking' || final.type === 'redacted_thinking') return;
  blocks[blocks.length - 1] = { ...final, cache_control: { type: 'ephemeral' } } as typeof final;
  messages[messages.length - 1] = { ...last, content: blocks } as MessageParam;
}
