import {
  type LLMCompletion,
  type LLMCompletionRequest,
  LLMResponseError,
  providerCompactionItem,
  type ProviderUsage,
  toTokenUsage,
} from '@ctxkit/core';
import type OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming, ResponseInputItem } from 'openai/resources/responses/responses';

import { fromResponsesOutput, toResponsesInput, toResponsesTools } from '../providers/openai-responses-adapter';
import { validateForProvider } from '../providers/validate-for-provider';
import { assistantCompletion } from './assistant-completion';
import { LastTurnRequests } from './last-turn-requests';
import { createOpenAISdkConnection } from './openai-sdk-connection';
import type { RetryOptions } from './retry-options';
import { SdkLLMClient } from './sdk-llm-client';

/** Options of {@link OpenAIResponsesClient}. Every field falls back to its environment variable. */
export interface OpenAIResponsesClientOptions {
  /** @default env OPENAI_BASE_URL, else https://api.openai.com/v1 */
  baseURL?: string;
  /** @default env OPENAI_API_KEY */
  apiKey?: string;
  /** Model used when a request names none. @default env OPENAI_MODEL, else gpt-5.4-mini */
  model?: string;
  /** Per-attempt timeout (a timed-out attempt is retried). @default 60000 */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * Sent as `store`. ctxkit sends the whole input with every request and keeps the provider's items
   * (reasoning, compaction) on its messages, so nothing needs storing server-side; `false` also asks
   * for reasoning items with their `encrypted_content` (`include`), which a stateless conversation
   * sends back.
   * @default false
   */
  store?: boolean;
  /** Send the request's `cacheKey` as `prompt_cache_key`. @default true for api.openai.com, else false */
  sendPromptCacheKey?: boolean;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** @default 'openai-responses:<model>' */
  name?: string;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The request body this client sends: the SDK's, with ctxkit's input items (their types are looser than the SDK's). */
type ResponsesBody = ResponseCreateParamsNonStreaming;

/**
 * An `ILLMClient` for the OpenAI Responses API on the official `openai` SDK: the messages become
 * input items (`toResponsesInput`: reasoning and compaction items sent back byte for byte), tools
 * become function tools, and the output items become one assistant message (`fromResponsesOutput`).
 * Stateless: every request carries its whole input (`store: false` by default). It remembers each
 * conversation's last turn (by `cacheKey`): a helper request with a `continuation` goes out as that
 * turn's input continued. A request with `providerCompaction` is sent as the turn with a
 * `compaction_trigger` item last and `context_management: [{ type: 'compaction' }]`, and answers
 * with the returned `compaction` item.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction for api.openai.com without a key
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) for a payload the API would reject
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (no output, an empty answer, a compaction answer without
 *   its item)
 * @see docs/08-kernel.md
 */
export class OpenAIResponsesClient extends SdkLLMClient<OpenAIResponsesClientOptions> {
  /** Requests go out in the OpenAI Responses API's format. */
  readonly provider = 'openai-responses';
  /** Asks for the Responses API's compaction on a request with `providerCompaction`. */
  readonly providerCompaction = 'openai-responses' as const;
  private readonly sdk: OpenAI;
  private readonly sdkClass: typeof OpenAI;
  private readonly lastTurns = new LastTurnRequests<ResponsesBody>();

  constructor(options: OpenAIResponsesClientOptions = {}) {
    const connection = createOpenAISdkConnection(options, 'OpenAIResponsesClient');
    const defaultModel = options.model ?? ((options.env ?? process.env).OPENAI_MODEL || 'gpt-5.4-mini');
    super(options, {
      name: options.name ?? `openai-responses:${defaultModel}`,
      defaultModel,
      baseURL: connection.baseURL,
    });
    this.sdk = connection.sdk;
    this.sdkClass = connection.errors;
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    validateForProvider('openai-responses', request.messages);
    const model = request.model ?? this.defaultModel;
    const compacting = request.providerCompaction !== undefined;
    const body = (!compacting ? this.continuedBody(request, model) : undefined) ?? this.turnBody(request, model);
    if (compacting) {
      // The trigger must be the last input item; the context management entry names the kind of compaction.
      body.input = [...(body.input as ResponseInputItem[]), { type: 'compaction_trigger' }];
      body.context_management = [{ type: 'compaction' }];
    }
    // Output and cache settings follow the input, so that a helper request continuing this one starts with its bytes.
    if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.responseFormat === 'json') body.text = { format: { type: 'json_object' } };
    const store = this.options.store ?? false;
    body.store = store;
    if (!store) body.include = ['reasoning.encrypted_content'];
    if (
      request.cacheKey !== undefined &&
      (this.options.sendPromptCacheKey ?? this.baseURL.startsWith('https://api.openai.com'))
    )
      body.prompt_cache_key = request.cacheKey;
    if (!compacting) this.lastTurns.record(request, body);

    const { reply, details } = await this.send<{
      output?: unknown;
      usage?: ProviderUsage;
      model?: unknown;
      status?: unknown;
      error?: unknown;
    }>(request, model, {
      url: `${this.baseURL}/responses`,
      errors: this.sdkClass,
      create: (fetch, sendOptions) => this.sdk.withOptions({ fetch }).responses.create(body, sendOptions),
    });
    if (!Array.isArray(reply.output)) throw new LLMResponseError('the answer has no output array', details);
    const message = fromResponsesOutput(reply.output, this.name);
    if (compacting) {
      if (providerCompactionItem(message) === undefined)
        throw new LLMResponseError('the compaction answer holds no compaction item with encrypted content', details);
      // Only the compaction item replaces the conversation; any text beside it is not part of it.
      const completion: LLMCompletion = {
        message: { role: 'assistant', content: null, reasoning: [providerCompactionItem(message)!] },
        text: '',
        usage: toTokenUsage(reply.usage),
        model: typeof reply.model === 'string' ? reply.model : model,
      };
      if (typeof reply.status === 'string') completion.finishReason = reply.status;
      return completion;
    }
    return assistantCompletion(
      { message, usage: reply.usage, model: reply.model, finishReason: reply.status },
      model,
      details,
    );
  }

  /** A request's own body: model, tools, then the input items. */
  private turnBody(request: LLMCompletionRequest, model: string): ResponsesBody {
    const body = { model } as ResponsesBody;
    if (request.tools && request.tools.length > 0)
      body.tools = toResponsesTools(request.tools) as ResponsesBody['tools'];
    body.input = toResponsesInput(request.messages) as ResponseInputItem[];
    return body;
  }

  /**
   * A helper request as the conversation's last turn continued: its model, tools and input items, then the helper's.
   */
  private continuedBody(request: LLMCompletionRequest, model: string): ResponsesBody | undefined {
    const last = this.lastTurns.continued(request);
    if (!last || last.model !== model) return undefined;
    validateForProvider('openai-responses', request.continuation!);
    const body = { model: last.model } as ResponsesBody;
    if (last.tools !== undefined) body.tools = last.tools;
    body.input = [
      ...(last.input as ResponseInputItem[]),
      ...(toResponsesInput(request.continuation!) as ResponseInputItem[]),
    ];
    return body;
  }
}
