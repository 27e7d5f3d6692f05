import type { EmbedOptions, ITextEmbedder, LLMErrorDetails } from '@ctxkit/core';
import { checkedVectors, untilAborted } from '@ctxkit/core/strategy-kit';
import type { EmbeddingModel, embedMany as EmbedMany } from 'ai';

import { aiSdkErrorToLLMError } from './ai-sdk-error-to-llm-error';

/** Options of {@link embedderFromEmbeddingModel}. */
export interface EmbeddingModelEmbedderOptions {
  /**
   * The embedder's `model`, stored beside every vector (vectors of another name are embedded again).
   * @default '<provider>:<modelId>' (the id itself for a model id string), with '@<dimensions>' when
   * `dimensions` is given
   */
  modelName?: string;
  /** Length of the vectors, for models that can shorten them (`text-embedding-3-*`). @default the model's */
  dimensions?: number;
  /** Retries of a failed model call (`embedMany`'s `maxRetries`; 0 sends each call once). @default 2 */
  maxRetries?: number;
  /**
   * Model calls at once when the texts are more than one call takes (`embedMany`'s `maxParallelCalls`).
   * @default Infinity
   */
  maxParallelCalls?: number;
  /** Provider options sent with every call (e.g. `{ openai: { user: 'support-agent' } }`). */
  providerOptions?: Parameters<typeof EmbedMany>[0]['providerOptions'];
}

/** The `{ errors }` of the AI SDK's `RetryError`, read by shape. */
interface RetryErrorShape {
  name: 'AI_RetryError';
  errors?: unknown[];
  lastError?: unknown;
}

/**
 * The AI SDK's `embedMany`, loaded when the first embedder is made: importing the adapter loads
 * nothing of `ai` (an ES module, which Node ≥ 20.19 loads with `require`).
 */
function loadEmbedMany(): typeof EmbedMany {
  return (require('ai') as typeof import('ai')).embedMany;
}

/** The name of an embedding model: `<provider>:<modelId>`, or the id string itself. */
function embeddingModelName(model: EmbeddingModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

/**
 * A ctxkit `ITextEmbedder` on an AI SDK embedding model, so that recall finds earlier turns by
 * meaning with the provider the application already configured:
 *
 * ```ts
 * const embedder = embedderFromEmbeddingModel(openai.embedding('text-embedding-3-small'));
 * const runtime = createContextRuntime({ embedder });
 * ```
 *
 * Each `embed` is one `embedMany` call of the AI SDK: the texts as `values`, the caller's signal as
 * `abortSignal`, and the options' `dimensions`, `maxRetries`, `maxParallelCalls` and
 * `providerOptions`. `embedMany` splits the texts into as many model calls as the model's
 * `maxEmbeddingsPerCall` asks, retries failed calls with backoff and returns the vectors in the
 * texts' order. A model id string (`'openai/text-embedding-3-small'`) goes through the AI SDK's
 * global provider, as with `embedMany` itself.
 *
 * An aborted signal rejects the call at once with the signal's reason, also for a model that does
 * not watch it. Other failures become ctxkit errors, as for `llmClientFromLanguageModel`.
 *
 * @throws LLMRequestError (an `APICallError`, with `status`, `retryable` and `attempts`; no
 * connection; a missing API key), LLMResponseError (an answer the provider could not read, or
 * vectors that are not one per text of one length)
 * @see docs/adapters/ai-sdk.md
 */
export function embedderFromEmbeddingModel(
  model: EmbeddingModel,
  options: EmbeddingModelEmbedderOptions = {},
): ITextEmbedder {
  return new EmbeddingModelEmbedder(model, options, loadEmbedMany());
}

class EmbeddingModelEmbedder implements ITextEmbedder {
  readonly model: string;
  private readonly details: LLMErrorDetails;

  constructor(
    private readonly embeddingModel: EmbeddingModel,
    private readonly options: EmbeddingModelEmbedderOptions,
    private readonly embedMany: typeof EmbedMany,
  ) {
    const name = embeddingModelName(embeddingModel);
    const dimensions = options.dimensions === undefined ? '' : `@${options.dimensions}`;
    this.model = options.modelName ?? `${name}${dimensions}`;
    this.details = { client: `ai-sdk:${name}`, model: name };
  }

  async embed(texts: ReadonlyArray<string>, options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const vectors = await untilAborted(() => this.embedOnce(texts, options.signal), options.signal);
    return checkedVectors(vectors, texts.length, this.details);
  }

  private async embedOnce(texts: ReadonlyArray<string>, signal: AbortSignal | undefined): Promise<number[][]> {
    const { dimensions, maxRetries, maxParallelCalls, providerOptions } = this.options;
    try {
      const result = await this.embedMany({
        model: this.embeddingModel,
        values: [...texts],
        ...(dimensions !== undefined ? { dimensions } : {}),
        ...(maxRetries !== undefined ? { maxRetries } : {}),
        ...(maxParallelCalls !== undefined ? { maxParallelCalls } : {}),
        ...(providerOptions !== undefined ? { providerOptions } : {}),
        ...(signal !== undefined ? { abortSignal: signal } : {}),
      });
      return result.embeddings;
    } catch (error) {
      throw this.mapped(error);
    }
  }

  /** The ctxkit error for what `embedMany` threw: a `RetryError` is reported as its last error. */
  private mapped(error: unknown): Error {
    const retried = error as RetryErrorShape | null | undefined;
    if (retried?.name === 'AI_RetryError' && retried.lastError !== undefined) {
      const attempts = Array.isArray(retried.errors) ? retried.errors.length : undefined;
      return aiSdkErrorToLLMError(retried.lastError, { ...this.details, ...(attempts ? { attempts } : {}) });
    }
    return aiSdkErrorToLLMError(error, this.details);
  }
}
