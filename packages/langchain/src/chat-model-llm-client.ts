import {
  type AssistantMessage,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  LLMRequestError,
  LLMResponseError,
  toCacheMissReport,
} from '@ctxkit/core';
import { DeadlineBoundLLMClient } from '@ctxkit/core/strategy-kit';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';

import { chatModelErrorToLLMError } from './chat-model-error-to-llm-error';
import { configuredModelName } from './configured-model-name';
import { fromChatMessages } from './from-chat-messages';
import { toChatMessage } from './to-chat-messages';
import { tokenUsageOf } from './token-usage-of';

/** Options of {@link llmClientFromChatModel}. */
export interface ChatModelClientOptions {
  /** Client name shown in reports and errors. @default 'langchain:<model name>' */
  name?: string;
  /** Deadline of a call when the request gives none. @default 60000 */
  timeoutMs?: number;
}

/** The model name a chat model was configured with (`model` / `modelName`), else its LangChain type. */
function modelNameOf(model: BaseChatModel): string {
  return configuredModelName(model) ?? model._llmType();
}

/**
 * A ctxkit `ILLMClient` on any LangChain chat model (`ChatOpenAI`, `ChatAnthropic`, `ChatOllama` …,
 * any `BaseChatModel`), so that summaries, entity extraction and compaction run on the model the
 * application already configured:
 *
 * ```ts
 * const llm = llmClientFromChatModel(new ChatOpenAI({ model: 'gpt-4o-mini', maxTokens: 1024 }));
 * const ctxkit = ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config, runtimeOptions: { llm } });
 * ```
 *
 * Each `complete` is one `model.invoke` with the messages converted to LangChain messages, the
 * tools bound with `bindTools` when there are any, and a `signal` that fires at the request's
 * `timeoutMs` (else `options.timeoutMs`) or when the request's `signal` aborts. The answer's text
 * and tool calls become the assistant message; `usage_metadata` maps to `TokenUsage` (cache reads
 * and writes apart from the other input); the finish reason is the provider's (`finish_reason` or
 * `stop_reason`). LangChain chat models take their sampling settings when they are built, not per
 * call: the model's own `maxTokens`, `temperature` and response format apply, and a request's
 * `maxOutputTokens`, `temperature`, `responseFormat` and `model` are not used. Retries are the
 * model's own (`maxRetries`).
 *
 * @throws LLMRequestError, LLMTimeoutError, LLMResponseError (an empty answer); LLMRequestError
 * (`retryable: false`) for a request with tools to a model without `bindTools`
 * @see docs/adapters/langchain.md
 */
export function llmClientFromChatModel(model: BaseChatModel, options: ChatModelClientOptions = {}): ILLMClient {
  return new ChatModelLLMClient(model, options);
}

class ChatModelLLMClient extends DeadlineBoundLLMClient {
  constructor(
    private readonly model: BaseChatModel,
    options: ChatModelClientOptions,
  ) {
    const modelName = modelNameOf(model);
    super(options.name ?? `langchain:${modelName}`, modelName, options.timeoutMs);
  }

  /**
   * One invoke; `request.signal` fires at the deadline or when the caller's signal aborts (completeBeforeDeadline ends
   * the call then).
   */
  protected async completeOnce(request: LLMCompletionRequest, timeoutMs: number): Promise<LLMCompletion> {
    const details = { client: this.name, model: this.defaultModel };
    const tools = request.tools ?? [];
    if (tools.length > 0 && typeof this.model.bindTools !== 'function') {
      throw new LLMRequestError('the chat model cannot bind tools', details, {
        retryable: false,
        fix: 'Use a chat model that supports tool calling (it has bindTools), or call without tools.',
      });
    }
    const runnable = tools.length > 0 ? this.model.bindTools!(tools) : this.model;
    let answer: BaseMessage;
    try {
      answer = await runnable.invoke(
        fromChatMessages(request.messages),
        request.signal ? { signal: request.signal } : {},
      );
    } catch (error) {
      throw chatModelErrorToLLMError(error, { ...details, timeoutMs });
    }
    if (answer.type !== 'ai') throw new LLMResponseError(`the model answered with a ${answer.type} message`, details);
    const { langchain: _origin, ...converted } = toChatMessage(answer);
    const message = converted as AssistantMessage;
    const text = typeof message.content === 'string' ? message.content : '';
    if (text.trim() === '' && !(message.tool_calls && message.tool_calls.length > 0)) {
      throw new LLMResponseError('the answer is empty (no text and no tool calls)', details);
    }
    const metadata = answer.response_metadata as Record<string, unknown> | undefined;
    const completion: LLMCompletion = {
      message,
      text,
      usage: tokenUsageOf((answer as AIMessage).usage_metadata, metadata),
      model:
        [metadata?.model_name, metadata?.model].find((value): value is string => typeof value === 'string') ??
        this.defaultModel,
    };
    const finishReason = [metadata?.finish_reason, metadata?.stop_reason].find(
      (value): value is string => typeof value === 'string',
    );
    if (finishReason !== undefined) completion.finishReason = finishReason;
    // The provider's own answer fields, where the integration passes them on: a cache-miss diagnosis.
    const cacheMiss = toCacheMissReport(metadata);
    if (cacheMiss) completion.cacheMiss = cacheMiss;
    return completion;
  }
}
