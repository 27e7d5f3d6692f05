import { type EmbedOptions, type ITextEmbedder, type LLMErrorDetails, LLMResponseError } from '@ctxkit/core';
import type OpenAI from 'openai';
import type { EmbeddingCreateParams } from 'openai/resources/embeddings';

import type { OpenAICompatibleClientOptions } from './openai-compatible-client';
import { createOpenAISdkConnection } from './openai-sdk-connection';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './sdk-attempt-limits';
import { sendThroughSdk } from './send-through-sdk';

/** The embedding model when neither the options nor `OPENAI_EMBEDDING_MODEL` name one. */
const OPENAI_DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

/** The most texts OpenAI embeds in one request. */
const OPENAI_MAX_INPUTS_PER_REQUEST = 2048;

/** The options the embedder reads as `OpenAICompatibleClient` does. */
type ConnectionOption = 'baseURL' | 'apiKey' | 'timeoutMs' | 'retry' | 'headers' | 'env' | 'fetch';

/**
 * Options of {@link OpenAICompatibleEmbedder}: where and how to connect as for `OpenAICompatibleClient`
 * (`baseURL`, `apiKey`, `timeoutMs`, `retry`, `headers`, `env`, `fetch`), and the embedding model.
 */
export interface OpenAICompatibleEmbedderOptions extends Pick<OpenAICompatibleClientOptions, ConnectionOption> {
  /**
   * The embedding model: `text-embedding-3-small`, `nomic-embed-text` (Ollama) …
   * @default env OPENAI_EMBEDDING_MODEL, else text-embedding-3-small
   */
  model?: string;
  /** Length of the vectors, for models that can shorten them (`text-embedding-3-*`). @default the model's */
  dimensions?: number;
  /** Texts sent in one request; more are sent in several, one after the other. @default 2048 */
  maxInputsPerRequest?: number;
  /**
   * How the server sends the vectors: `base64` is smaller on the wire (the SDK decodes it), `float`
   * is what every OpenAI-compatible server understands.
   * @default 'base64' for api.openai.com, else 'float'
   */
  encodingFormat?: 'float' | 'base64';
}

/** One item of an embeddings answer's `data`, as the server sent it (not checked yet). */
interface EmbeddingItem {
  index?: unknown;
  embedding?: unknown;
}

/**
 * An `ITextEmbedder` on the OpenAI embeddings API (`POST {baseURL}/embeddings`) with the official
 * `openai` SDK, for OpenAI itself and every server that speaks the same protocol (Ollama, llama.cpp
 * server, vLLM, LM Studio). It is configured like `OpenAICompatibleClient`: base URL, key, timeout,
 * retries and headers from the options, else `OPENAI_BASE_URL` / `OPENAI_API_KEY`; the model from
 * the options, else `OPENAI_EMBEDDING_MODEL`, else `text-embedding-3-small`.
 *
 * The texts are sent as `input` (at most `maxInputsPerRequest` a request) with `model`, `dimensions`
 * when given and `encoding_format`; the vectors are returned in the texts' order (the answer's
 * items are put in the order of their `index`). The SDK times each attempt out and retries
 * 408/409/429/5xx answers, network errors and timed-out attempts with backoff, honouring
 * `retry-after`; the caller's signal ends the call at once.
 *
 * `model` names the model with the dimensions when they are given (`text-embedding-3-small@256`):
 * vectors of another length are never compared with these.
 *
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) at construction for api.openai.com
 * without a key
 * @throws LLMRequestError (an HTTP error, with `status` and `retryable`; a network error),
 * LLMTimeoutError (no answer within `timeoutMs` after the retries, `details.aborted: false`; the
 * caller's signal, `details.aborted: true`), LLMResponseError (an answer without one vector per text
 * of one length)
 * @see docs/08-kernel.md
 */
export class OpenAICompatibleEmbedder implements ITextEmbedder {
  /** The model's name stored beside every vector: the model, with `@<dimensions>` when given. */
  readonly model: string;
  /** The endpoint's base URL, without a trailing slash. */
  readonly baseURL: string;
  private readonly embeddingModel: string;
  private readonly client: string;
  private readonly sdk: OpenAI;
  private readonly sdkClass: typeof OpenAI;

  constructor(private readonly options: OpenAICompatibleEmbedderOptions = {}) {
    const connection = createOpenAISdkConnection(options, 'OpenAICompatibleEmbedder');
    const env = options.env ?? process.env;
    this.embeddingModel = options.model ?? (env.OPENAI_EMBEDDING_MODEL || OPENAI_DEFAULT_EMBEDDING_MODEL);
    const dimensions = options.dimensions === undefined ? '' : `@${options.dimensions}`;
    this.model = `${this.embeddingModel}${dimensions}`;
    this.client = `openai-compatible:${this.embeddingModel}`;
    this.baseURL = connection.baseURL;
    this.sdk = connection.sdk;
    this.sdkClass = connection.errors;
  }

  async embed(texts: ReadonlyArray<string>, options: EmbedOptions = {}): Promise<number[][]> {
    const perRequest = Math.max(1, Math.floor(this.options.maxInputsPerRequest ?? OPENAI_MAX_INPUTS_PER_REQUEST));
    const vectors: number[][] = [];
    for (let from = 0; from < texts.length; from += perRequest) {
      const batch = await this.embedBatch(texts.slice(from, from + perRequest), options.signal);
      if (vectors.length > 0 && batch[0]!.length !== vectors[0]!.length) {
        const details = { client: this.client, model: this.embeddingModel };
        const problem = `vectors of ${batch[0]!.length} numbers after vectors of ${vectors[0]!.length}`;
        throw new LLMResponseError(problem, details);
      }
      vectors.push(...batch);
    }
    return vectors;
  }

  /** One request: the vectors of `texts`, in their order. */
  private async embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const timeoutMs = Math.max(1, Math.ceil(this.options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS));
    const body: EmbeddingCreateParams = { model: this.embeddingModel, input: texts };
    if (this.options.dimensions !== undefined) body.dimensions = this.options.dimensions;
    // Without an encoding_format the SDK asks for base64 and decodes it; one it is given, it returns as sent.
    const encoding = this.options.encodingFormat ?? (this.isOpenAI() ? 'base64' : 'float');
    if (encoding === 'float') body.encoding_format = 'float';
    const call = {
      client: this.client,
      model: this.embeddingModel,
      url: `${this.baseURL}/embeddings`,
      timeoutMs,
      errors: this.sdkClass,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    };
    const sendOptions = { timeout: timeoutMs, ...(signal ? { signal } : {}) };
    const { answer, attempts, status } = await sendThroughSdk(call, (fetch) =>
      this.sdk.withOptions({ fetch }).embeddings.create(body, sendOptions),
    );
    return this.vectorsOf(answer, texts.length, { client: this.client, model: this.embeddingModel, status, attempts });
  }

  /**
   * The answer's vectors in the order of their `index` (their position when the server sends none).
   * @throws LLMResponseError unless there is one vector per text, all of one non-zero length
   */
  private vectorsOf(answer: unknown, count: number, details: LLMErrorDetails): number[][] {
    const data = (answer as { data?: unknown } | null | undefined)?.data;
    if (!Array.isArray(data)) throw new LLMResponseError('the answer has no data', details);
    if (data.length !== count) throw new LLMResponseError(`expected ${count} vectors, got ${data.length}`, details);
    const vectors = new Array<number[] | undefined>(count);
    (data as Array<EmbeddingItem | null>).forEach((item, position) => {
      const index = Number.isInteger(item?.index) ? (item!.index as number) : position;
      const vector = item?.embedding;
      if (index < 0 || index >= count || vectors[index] !== undefined) {
        const problem = `data[${position}] has the index ${index}, outside 0..${count - 1} or seen before`;
        throw new LLMResponseError(problem, details);
      }
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((value) => typeof value === 'number')) {
        throw new LLMResponseError(`data[${position}].embedding is not an array of numbers`, details);
      }
      vectors[index] = vector;
    });
    const length = vectors[0]!.length;
    const expected = this.options.dimensions ?? length;
    if (vectors.some((vector) => vector!.length !== expected)) {
      const lengths = [...new Set(vectors.map((vector) => vector!.length))].join(', ');
      throw new LLMResponseError(`expected vectors of ${expected} numbers, got ${lengths}`, details);
    }
    return vectors as number[][];
  }

  private isOpenAI(): boolean {
    return this.baseURL.startsWith('https://api.openai.com');
  }
}
