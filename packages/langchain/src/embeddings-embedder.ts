import type { EmbedOptions, ITextEmbedder, LLMErrorDetails } from '@ctxkit/core';
import { checkedVectors, untilAborted } from '@ctxkit/core/strategy-kit';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';

import { configuredModelName } from './configured-model-name';

/** Options of {@link embedderFromLangChain}. */
export interface LangChainEmbedderOptions {
  /**
   * The embedder's `model`, stored beside every vector (vectors of another name are embedded again).
   * @default the instance's `model` or `modelName` field, else its class name; with '@<dimensions>'
   * when the instance has a `dimensions` field
   */
  modelName?: string;
}

/** The name of an embeddings instance: its configured model (and dimensions), else its class name. */
function embeddingsModelName(embeddings: EmbeddingsInterface): string {
  const name = configuredModelName(embeddings) ?? embeddings.constructor.name;
  const dimensions = (embeddings as { dimensions?: unknown }).dimensions;
  return typeof dimensions === 'number' ? `${name}@${dimensions}` : name;
}

/**
 * A ctxkit `ITextEmbedder` on any LangChain embeddings (`OpenAIEmbeddings`, `OllamaEmbeddings`,
 * `CohereEmbeddings` … any `Embeddings`), so that recall finds earlier turns by meaning with the
 * model, key and endpoint the application already configured:
 *
 * ```ts
 * const embedder = embedderFromLangChain(new OpenAIEmbeddings({ model: 'text-embedding-3-small' }));
 * const runtime = createContextRuntime({ embedder });
 * ```
 *
 * Each `embed` is one `embeddings.embedDocuments(texts)`: batching, concurrency and retries are the
 * instance's own (`batchSize`, `maxConcurrency`, `maxRetries`). LangChain's embeddings take no abort
 * signal, so the call races the caller's signal: an aborted call rejects at once with the signal's
 * reason (the request itself runs to its end, and its answer is dropped).
 *
 * @throws whatever `embedDocuments` throws, unchanged (the provider SDK's errors)
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) for vectors that are not one per text of
 * one length
 * @see docs/adapters/langchain.md
 */
export function embedderFromLangChain(
  embeddings: EmbeddingsInterface,
  options: LangChainEmbedderOptions = {},
): ITextEmbedder {
  return new LangChainEmbedder(embeddings, options.modelName ?? embeddingsModelName(embeddings));
}

class LangChainEmbedder implements ITextEmbedder {
  private readonly details: LLMErrorDetails;

  constructor(
    private readonly embeddings: EmbeddingsInterface,
    readonly model: string,
  ) {
    this.details = { client: `langchain:${model}`, model };
  }

  async embed(texts: ReadonlyArray<string>, options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const vectors = await untilAborted(() => this.embeddings.embedDocuments([...texts]), options.signal);
    return checkedVectors(vectors, texts.length, this.details);
  }
}
