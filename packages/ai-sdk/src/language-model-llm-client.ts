import {
  type AssistantMessage,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type LLMErrorDetails,
  LLMResponseError,
  type ReasoningItem,
  toCacheMissReport,
  type ToolCall,
} from '@ctxkit/core';
import { DeadlineBoundLLMClient } from '@ctxkit/core/strategy-kit';
import type { LanguageModel } from 'ai';

import { aiSdkErrorToLLMError } from './ai-sdk-error-to-llm-error';
import type { LanguageModelCallOptions, LanguageModelGenerateResult } from './ai-sdk-types';
import { LanguageModelClientError } from './errors/language-model-client-error';
import { keptPartItem } from './kept-assistant-part';
import { toLanguageModelPrompt } from './to-model-messages';
import { tokenUsageOf } from './token-usage-of';
import { languageModelTool } from './tool-definitions';

/**
 * A language model of the AI SDK 7 specification (`v4`): what `openai('gpt-4o-mini')`, `anthropic(…)`, `ollama(…)` …
 * return.
 */
export type CallableLanguageModel = Extract<LanguageModel, { specificationVersion: 'v4' }>;

/** Options of {@link llmClientFromLanguageModel}. */
export interface LanguageModelClientOptions {
  /** Client name shown in reports and errors. @default 'ai-sdk:<provider>:<modelId>' */
  name?: string;
  /** Deadline of a call when the request gives none. @default 60000 */
  timeoutMs?: number;
  /** Provider options sent with every call (e.g. `{ openai: { reasoningEffort: 'low' } }`). */
  providerOptions?: LanguageModelCallOptions['providerOptions'];
}

/**
 * A ctxkit `ILLMClient` on an AI SDK language model, so that summaries, entity extraction and
 * compaction run on the provider the application already configured:
 *
 * ```ts
 * const llm = llmClientFromLanguageModel(openai('gpt-4o-mini'));
 * const ctxkit = ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config, loadOptions: { llm } });
 * ```
 *
 * Each `complete` is one `model.doGenerate` call: the messages as the model's prompt, the tools as
 * function tools, `maxOutputTokens`, `temperature`, `responseFormat: 'json'` as a JSON response
 * format, and an abort signal that fires at the request's `timeoutMs` (else `options.timeoutMs`)
 * or when the request's `signal` aborts. The answer's text and tool calls become the assistant
 * message (reasoning parts ride on it as `ai-sdk` reasoning items); usage maps to `TokenUsage`
 * (uncached input, cache reads and writes, output); the finish reason is the AI SDK's unified one
 * (`stop`, `length`, `tool-calls` …). The model object decides which model answers: a request's
 * `model` is not used. The call is made once; retries are the model's own (or the strategy's,
 * which backs off after a failure). Give the bare model, not one wrapped with the context
 * middleware (a summary request would then be composed like a conversation step).
 *
 * @throws LanguageModelClientError (`CTXKIT_CONFIG_INVALID`) for a model id string or a model of an
 * older specification
 * @see docs/adapters/ai-sdk.md
 */
export function llmClientFromLanguageModel(
  model: CallableLanguageModel,
  options: LanguageModelClientOptions = {},
): ILLMClient {
  if (typeof model === 'string') {
    throw new LanguageModelClientError(
      `"${model}" is a model id, not a model`,
      "Pass the provider's model object, e.g. openai('gpt-4o-mini') from @ai-sdk/openai.",
    );
  }
  const version = (model as { specificationVersion?: unknown } | null | undefined)?.specificationVersion;
  if (version !== 'v4' || typeof (model as { doGenerate?: unknown }).doGenerate !== 'function') {
    throw new LanguageModelClientError(
      `the model implements specification ${JSON.stringify(version)}, not v4`,
      'Use a provider package made for AI SDK 7 (its models implement specification v4).',
    );
  }
  return new LanguageModelLLMClient(model, options);
}

class LanguageModelLLMClient extends DeadlineBoundLLMClient {
  constructor(
    private readonly model: CallableLanguageModel,
    private readonly options: LanguageModelClientOptions,
  ) {
    super(options.name ?? `ai-sdk:${model.provider}:${model.modelId}`, model.modelId, options.timeoutMs);
  }

  /**
   * One doGenerate call; `request.signal` fires at the deadline or when the caller's signal aborts
   * (completeBeforeDeadline ends the call then).
   */
  protected async completeOnce(request: LLMCompletionRequest): Promise<LLMCompletion> {
    const details: LLMErrorDetails = { client: this.name, model: this.defaultModel };
    const call: LanguageModelCallOptions = { prompt: toLanguageModelPrompt(request.messages) };
    if (request.tools && request.tools.length > 0) call.tools = request.tools.map(languageModelTool);
    if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
    if (request.temperature !== undefined) call.temperature = request.temperature;
    if (request.responseFormat === 'json') call.responseFormat = { type: 'json' };
    if (this.options.providerOptions !== undefined) call.providerOptions = this.options.providerOptions;
    if (request.signal !== undefined) call.abortSignal = request.signal;

    let result: LanguageModelGenerateResult;
    try {
      result = await this.model.doGenerate(call);
    } catch (error) {
      throw aiSdkErrorToLLMError(error, details);
    }

    const message = assistantMessageOf(result.content);
    const text = message.content ?? '';
    if (text.trim() === '' && !(message.tool_calls && message.tool_calls.length > 0)) {
      throw new LLMResponseError('the answer is empty (no text and no tool calls)', {
        ...details,
        finishReason: result.finishReason.unified,
      });
    }
    const completion: LLMCompletion = {
      message,
      text,
      usage: tokenUsageOf(result.usage),
      model: result.response?.modelId ?? this.defaultModel,
      finishReason: result.finishReason.unified,
    };
    // The provider's own answer, where its package passes it on: a cache-miss diagnosis.
    const cacheMiss = toCacheMissReport(result.response?.body);
    if (cacheMiss) completion.cacheMiss = cacheMiss;
    return completion;
  }
}

/** The assistant message of an answer: its text, the tool calls the caller runs, reasoning kept as `ai-sdk` items. */
function assistantMessageOf(content: LanguageModelGenerateResult['content']): AssistantMessage {
  let text: string | null = null;
  const calls: ToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  content.forEach((part, position) => {
    if (part.type === 'text') text = (text ?? '') + part.text;
    else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      calls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: part.input } });
    } else if (part.type === 'reasoning') {
      reasoning.push(
        keptPartItem(
          {
            type: 'reasoning',
            text: part.text,
            ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}),
          },
          position,
        ),
      );
    }
  });
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  return message;
}
