import type Anthropic from '@anthropic-ai/sdk';
import type {
  BetaCompactionConfig,
  MessageCreateParamsNonStreaming as BetaMessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type {
  CacheControlEphemeral,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type LLMCompletion,
  type LLMCompletionRequest,
  LLMNotConfiguredError,
  LLMResponseError,
  providerCompactionItem,
  type ProviderUsage,
  toCacheMissReport,
  toTokenUsage,
} from '@ctxkit/core';

import { fromAnthropicContent, toAnthropicMessages, toAnthropicTools } from '../providers/anthropic-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import { assistantCompletion } from './assistant-completion';
import { LastTurnRequests, REMEMBERED_CONVERSATIONS } from './last-turn-requests';
import type { RetryOptions } from './retry-options';
import { SdkLLMClient } from './sdk-llm-client';

/** The public Anthropic endpoint, used when no base URL is given. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The `anthropic-version` header sent by default: the Messages API version ctxkit's adapter writes. */
export const ANTHROPIC_API_VERSION = '2023-06-01';
/**
 * The beta a compaction request names (`anthropic-beta`), as `@anthropic-ai/sdk` 1.12 documents the `compaction`
 * parameter.
 */
export const ANTHROPIC_COMPACTION_BETA = 'compact-2026-09-04';

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
  /**
   * The time to live of the cache breakpoints: `'5m'` (the API's default) or `'1h'`. One-hour
   * entries cost more to write (2× the input price against 1.25×) and outlive a pause of the
   * conversation.
   * @default '5m'
   */
  cacheTtl?: '5m' | '1h';
  /**
   * Ask the API why a request read less from the prompt cache than the conversation's previous
   * one (`diagnostics.previous_message_id`); the reason comes back as the completion's `cacheMiss`.
   * Needs a request `cacheKey` (the agent loop sends one).
   * @default false
   */
  cacheDiagnostics?: boolean;
  /** `max_tokens` when a request gives no `maxOutputTokens` (the API requires one). @default 4096 */
  defaultMaxOutputTokens?: number;
  /** @default '2023-06-01' */
  apiVersion?: string;
  /**
   * The beta a compaction request (`LLMCompletionRequest.providerCompaction`) is sent under.
   * @default 'compact-2026-09-04'
   */
  compactionBeta?: string;
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
 * backoff, honouring `retry-after`. It remembers each conversation's last turn (by `cacheKey`): a
 * helper request with a `continuation` goes out as that turn's request continued, reading its
 * cached prompt. A request with `providerCompaction` asks for Anthropic's compaction (beta) and
 * answers with the signed `compaction` block.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload Anthropic would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (no content, an empty answer, a malformed body)
 * @see docs/08-kernel.md
 */
export class AnthropicClient extends SdkLLMClient<AnthropicClientOptions> {
  /** Requests go out in the Anthropic Messages API's format. */
  readonly provider = 'anthropic';
  /** Asks for Anthropic's compaction (beta) on a request with `providerCompaction`. */
  readonly providerCompaction = 'anthropic' as const;
  private readonly sdk: Anthropic;
  private readonly sdkClass: typeof Anthropic;
  private readonly lastTurns = new LastTurnRequests<AnthropicBody>();
  /** The id of the answer to each conversation's last turn, for cache diagnostics. */
  private readonly previousMessageIds = new Map<string, string>();

  constructor(options: AnthropicClientOptions = {}) {
    const env = options.env ?? process.env;
    const apiKey = options.apiKey ?? (env.ANTHROPIC_API_KEY || undefined);
    if (apiKey === undefined) throw new LLMNotConfiguredError('AnthropicClient (no ANTHROPIC_API_KEY)');
    const defaultModel = options.model ?? (env.ANTHROPIC_MODEL || 'claude-haiku-4-5');
    super(options, {
      name: options.name ?? `anthropic:${defaultModel}`,
      defaultModel,
      baseURL: (options.baseURL ?? env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE_URL)
        .replace(/\/+$/, '')
        .replace(/\/v1$/, ''),
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
    if (request.providerCompaction !== undefined) return this.compact(request, model);
    const body = this.continuedBody(request, model) ?? this.turnBody(request, model);
    // Output settings follow the messages, so that a helper request continuing this one starts with its bytes.
    body.max_tokens = request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    const conversation = request.cacheKey;
    if (this.options.cacheDiagnostics === true && conversation !== undefined)
      body.diagnostics = { previous_message_id: this.previousMessageIds.get(conversation) ?? null };
    this.lastTurns.record(request, body);

    const { reply, details } = await this.send<AnthropicReply>(request, model, {
      url: `${this.baseURL}/v1/messages`,
      errors: this.sdkClass,
      create: (fetch, sendOptions) => this.sdk.withOptions({ fetch }).messages.create(body, sendOptions),
    });
    if (reply.type === 'error') throw new LLMResponseError('the body is an error object', details);
    if (!Array.isArray(reply.content)) throw new LLMResponseError('the answer has no content array', details);
    if (conversation !== undefined && request.continuation === undefined && typeof reply.id === 'string')
      this.rememberMessageId(conversation, reply.id);
    const completion = assistantCompletion(
      {
        message: fromAnthropicContent(reply.content, this.name),
        usage: reply.usage,
        model: reply.model,
        finishReason: reply.stop_reason,
      },
      model,
      details,
    );
    const miss = toCacheMissReport(reply);
    if (miss) completion.cacheMiss = miss;
    return completion;
  }

  /**
   * A compaction request: the request's own body (system prompt, tools, messages, breakpoints, as a
   * turn's) with `compaction: { type: 'summarize' }` (and the instructions), sent through the SDK's beta
   * Messages call under {@link ANTHROPIC_COMPACTION_BETA} (the `anthropic-beta` header). The answer holds the signed
   * `compaction` block alone, kept whole as a reasoning item of the completion's message. Never remembered as a turn.
   * @throws LLMResponseError when the answer holds no compaction block with a summary (a `null`
   *   content is a compaction the server could not make)
   */
  private async compact(request: LLMCompletionRequest, model: string): Promise<LLMCompletion> {
    const body = this.turnBody(request, model);
    body.max_tokens = request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096;
    const instructions = request.providerCompaction!.instructions;
    const compaction: BetaCompactionConfig = {
      type: 'summarize',
      ...(instructions !== undefined && instructions.trim() !== '' ? { instructions } : {}),
    };
    const params = {
      ...body,
      compaction,
      betas: [this.options.compactionBeta ?? ANTHROPIC_COMPACTION_BETA],
    } as unknown as BetaMessageCreateParamsNonStreaming;
    const { reply, details } = await this.send<AnthropicReply>(request, model, {
      url: `${this.baseURL}/v1/messages`,
      errors: this.sdkClass,
      create: (fetch, sendOptions) => this.sdk.withOptions({ fetch }).beta.messages.create(params, sendOptions),
    });
    if (reply.type === 'error') throw new LLMResponseError('the body is an error object', details);
    if (!Array.isArray(reply.content)) throw new LLMResponseError('the answer has no content array', details);
    const message = fromAnthropicContent(reply.content, this.name);
    if (providerCompactionItem(message) === undefined) {
      throw new LLMResponseError('the compaction answer holds no compaction block with a summary', {
        ...details,
        finishReason: reply.stop_reason,
      });
    }
    const completion: LLMCompletion = {
      message,
      text: '',
      usage: toTokenUsage(reply.usage),
      model: typeof reply.model === 'string' ? reply.model : model,
    };
    if (typeof reply.stop_reason === 'string') completion.finishReason = reply.stop_reason;
    return completion;
  }

  private rememberMessageId(conversation: string, id: string): void {
    this.previousMessageIds.delete(conversation);
    this.previousMessageIds.set(conversation, id);
    if (this.previousMessageIds.size > REMEMBERED_CONVERSATIONS)
      this.previousMessageIds.delete(this.previousMessageIds.keys().next().value as string);
  }

  /** A request's own body: model, system prompt, tools, then messages, with the cache breakpoints. */
  private turnBody(request: LLMCompletionRequest, model: string): AnthropicBody {
    const conversation = toAnthropicMessages(request.messages);
    const caching = this.options.promptCaching ?? true;
    const breakpoint: CacheControlEphemeral =
      this.options.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
    // `max_tokens` is set by the caller after the messages.
    const body = { model } as AnthropicBody;
    if (conversation.system !== undefined)
      body.system = caching
        ? cachedSystemBlocks(conversation.system, conversation.systemParts, breakpoint)
        : conversation.system;
    if (request.tools && request.tools.length > 0) body.tools = toAnthropicTools(request.tools) as ToolUnion[];
    // ctxkit's adapter writes the wire shape; its block types are looser than the SDK's (a
    // thinking block's signature is optional in ctxkit, an image's media type any string).
    body.messages = conversation.messages as MessageParam[];
    if (caching) markCacheBreakpoint(body.messages, breakpoint);
    return body;
  }

  /**
   * A helper request as the conversation's last turn continued: that body's model, system prompt,
   * tools and message objects (their breakpoints kept: the cache is read up to the last turn's end),
   * then the helper's messages. Undefined (the request goes out on its own) when no turn was sent
   * under its key, it asks for another model, or its continuation carries a system message.
   */
  private continuedBody(request: LLMCompletionRequest, model: string): AnthropicBody | undefined {
    const last = this.lastTurns.continued(request);
    if (!last || last.model !== model || request.continuation!.some((message) => message.role === 'system'))
      return undefined;
    validateForProvider('anthropic', request.continuation!);
    const appended = toAnthropicMessages(request.continuation!).messages as MessageParam[];
    const body = { model: last.model } as AnthropicBody;
    if (last.system !== undefined) body.system = last.system;
    if (last.tools !== undefined) body.tools = last.tools;
    body.messages = [...last.messages, ...appended];
    return body;
  }
}

/**
 * The request body this client sends. `temperature` is no longer in the SDK's request type; the Messages API version
 * sent (`apiVersion`) still takes it.
 */
type AnthropicBody = MessageCreateParamsNonStreaming & { temperature?: number };

/** The answer's fields this client reads. */
interface AnthropicReply {
  id?: unknown;
  content?: unknown;
  usage?: ProviderUsage;
  model?: unknown;
  stop_reason?: unknown;
  type?: unknown;
}

/**
 * The system prompt as text blocks, one per system message, with a cache breakpoint on the first
 * (the agent's own prompt, which stays the same while a summary or a state after it changes) and on
 * the last: the prompt is found in the cache up to the first block that changed. With the breakpoint
 * on the newest message that is three of the four the API allows.
 */
function cachedSystemBlocks(
  system: string,
  parts: ReadonlyArray<string>,
  breakpoint: CacheControlEphemeral,
): TextBlockParam[] {
  const texts = parts.length > 0 ? parts : [system];
  return texts.map((text, index) =>
    index === 0 || index === texts.length - 1
      ? { type: 'text', text, cache_control: breakpoint }
      : { type: 'text', text },
  );
}

/**
 * Puts a cache breakpoint on the last block of the last message (a copy of that message; the rest
 * are shared): the prompt up to there is cached, and the next request reads it. Thinking blocks
 * cannot carry one; a message that ends with one gets none.
 */
function markCacheBreakpoint(messages: MessageParam[], breakpoint: CacheControlEphemeral): void {
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content) || last.content.length === 0) return;
  const blocks = last.content.slice();
  const final = blocks[blocks.length - 1]!;
  if (final.type === 'thinking' || final.type === 'redacted_thinking') return;
  blocks[blocks.length - 1] = { ...final, cache_control: breakpoint } as typeof final;
  messages[messages.length - 1] = { ...last, content: blocks } as MessageParam;
}
