/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import { type CtxkitError, ErrorCodes, LLMRequestError, LLMResponseError } from '@ctxkit/core';
import { APICallError } from 'ai';
import { MockEmbeddingModelV4 } from 'ai/test';

import { embedderFromEmbeddingModel } from './embedding-model-embedder';

type EmbedCall = Parameters<MockEmbeddingModelV4['doEmbed']>[0];

/** A deterministic vector of a text: its length, its vowels, its first character code. */
function vectorOf(text: string): number[] {
  return [text.length, (text.match(/[aeiou]/g) ?? []).length, text.charCodeAt(0)];
}

/** A model that embeds with {@link vectorOf}, `perCall` texts a call. */
function embeddingModel(perCall = 8, parallel = false): MockEmbeddingModelV4 {
  return new MockEmbeddingModelV4({
    provider: 'mock-provider.embedding',
    modelId: 'mock-embed-1',
    maxEmbeddingsPerCall: perCall,
    supportsParallelCalls: parallel,
    doEmbed: async ({ values }: EmbedCall) => ({ embeddings: values.map(vectorOf), warnings: [] }),
  });
}

/** A model whose calls end only when their abort signal fires (then reject as fetch does). */
function hanging(): MockEmbeddingModelV4 {
  return new MockEmbeddingModelV4({
    maxEmbeddingsPerCall: 8,
    doEmbed: ({ abortSignal }: EmbedCall) =>
      new Promise((_resolve, reject) => {
        const aborted = () => reject(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }));
        abortSignal?.addEventListener('abort', aborted, { once: true });
      }),
  });
}

/** What `promise` rejects with (it must reject: a value is returned as is and fails the assertions). */
const failure = (promise: Promise<unknown>): Promise<CtxkitError> =>
  promise.then(
    (value) => value as CtxkitError,
    (error: unknown) => error as CtxkitError,
  );

const texts = ['Where is my refund?', 'The card was charged twice.', 'Flight HAT170 moved to May 21.'];

describe('embedderFromEmbeddingModel', () => {
  describe('#model', () => {
    it('names the model by its provider and id, with the dimensions when they are asked for', () => {
      expect(embedderFromEmbeddingModel(embeddingModel()).model).toBe('mock-provider.embedding:mock-embed-1');
      const shortened = embedderFromEmbeddingModel(embeddingModel(), { dimensions: 256 });
      expect(shortened.model).toBe('mock-provider.embedding:mock-embed-1@256');
      expect(embedderFromEmbeddingModel('openai/text-embedding-3-small').model).toBe('openai/text-embedding-3-small');
      const named = embedderFromEmbeddingModel(embeddingModel(), { modelName: 'support-embeddings' });
      expect(named.model).toBe('support-embeddings');
    });
  });

  describe('#embed', () => {
    it("returns one vector per text in the texts' order, through embedMany", async () => {
      const model = embeddingModel();
      const vectors = await embedderFromEmbeddingModel(model).embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      expect(model.doEmbedCalls).toHaveLength(1);
      expect(model.doEmbedCalls[0]!.values).toEqual(texts);
    });

    it("keeps the texts' order when the texts take several calls, answered out of order", async () => {
      const delays = [30, 0, 10];
      let call = 0;
      const model = new MockEmbeddingModelV4({
        maxEmbeddingsPerCall: 1,
        supportsParallelCalls: true,
        doEmbed: async ({ values }: EmbedCall) => {
          await new Promise((resolve) => setTimeout(resolve, delays[call++]));
          return { embeddings: values.map(vectorOf), warnings: [] };
        },
      });
      const vectors = await embedderFromEmbeddingModel(model, { maxParallelCalls: 3 }).embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      expect(model.doEmbedCalls.map((options) => options.values)).toEqual(texts.map((text) => [text]));
    });

    it('sends the dimensions and provider options with every call', async () => {
      const model = embeddingModel(2);
      const providerOptions = { openai: { user: 'support-agent' } };
      await embedderFromEmbeddingModel(model, { dimensions: 3, providerOptions }).embed(texts);
      expect(model.doEmbedCalls).toHaveLength(2);
      for (const options of model.doEmbedCalls) {
        expect(options.dimensions).toBe(3);
        expect(options.providerOptions).toEqual(providerOptions);
      }
    });

    it('passes the abort signal through to the model', async () => {
      const model = embeddingModel();
      const controller = new AbortController();
      await embedderFromEmbeddingModel(model).embed(texts, { signal: controller.signal });
      expect(model.doEmbedCalls[0]!.abortSignal).toBe(controller.signal);
    });

    it("rejects with the signal's reason when the caller aborts", async () => {
      const model = hanging();
      const controller = new AbortController();
      const pending = embedderFromEmbeddingModel(model).embed(texts, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('agent disposed')), 10);
      await expect(pending).rejects.toThrow('agent disposed');
      expect(model.doEmbedCalls[0]!.abortSignal!.aborted).toBe(true);
    });

    it('rejects at once for a model that ignores its signal, and calls no model when already aborted', async () => {
      const deaf = new MockEmbeddingModelV4({ maxEmbeddingsPerCall: 8, doEmbed: () => new Promise(() => undefined) });
      const controller = new AbortController();
      const pending = embedderFromEmbeddingModel(deaf).embed(texts, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('agent disposed')), 10);
      await expect(pending).rejects.toThrow('agent disposed');
      const model = embeddingModel();
      const late = embedderFromEmbeddingModel(model).embed(texts, { signal: controller.signal });
      await expect(late).rejects.toThrow('agent disposed');
      expect(model.doEmbedCalls).toHaveLength(0);
    });

    it("reports a provider's refusal as an LLMRequestError with its status, sent once with maxRetries 0", async () => {
      const refusal = new APICallError({
        message: 'Rate limit reached',
        url: 'https://api.example.test/v1/embeddings',
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { 'retry-after': '7' },
        responseBody: '{"error":{"message":"Rate limit reached"}}',
        isRetryable: true,
      });
      const model = new MockEmbeddingModelV4({ maxEmbeddingsPerCall: 8, doEmbed: () => Promise.reject(refusal) });
      const error = await failure(embedderFromEmbeddingModel(model, { maxRetries: 0 }).embed(texts));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.code).toBe(ErrorCodes.LLM_REQUEST_FAILED);
      expect((error as LLMRequestError).status).toBe(429);
      expect((error as LLMRequestError).retryable).toBe(true);
      expect(error.details).toMatchObject({ client: 'ai-sdk:mock-provider:mock-model-id', retryAfterMs: 7000 });
      expect(error.cause).toBe(refusal);
      expect(model.doEmbedCalls).toHaveLength(1);
    });

    it('reports the last failure and the attempts when the retries are spent', async () => {
      // the first failure is retryable (at once: retry-after-ms 0), the second is not
      const failures = [
        new APICallError({
          message: 'overloaded',
          url: 'u',
          requestBodyValues: {},
          statusCode: 503,
          isRetryable: true,
          responseHeaders: { 'retry-after-ms': '0' },
        }),
        new APICallError({ message: 'unauthorized', url: 'u', requestBodyValues: {}, statusCode: 401 }),
      ];
      let call = 0;
      const model = new MockEmbeddingModelV4({
        maxEmbeddingsPerCall: 8,
        doEmbed: () => Promise.reject(failures[call++]),
      });
      const error = await failure(embedderFromEmbeddingModel(model).embed(texts));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect((error as LLMRequestError).status).toBe(401);
      expect(error.details.attempts).toBe(2);
      expect(error.cause).toBe(failures[1]);
    });

    it('lets any other failure of the model through as a ctxkit error with it as the cause', async () => {
      const broken = new Error('socket hang up');
      const model = new MockEmbeddingModelV4({ maxEmbeddingsPerCall: 8, doEmbed: () => Promise.reject(broken) });
      const error = await failure(embedderFromEmbeddingModel(model).embed(texts));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.message).toMatch(/socket hang up/);
      expect(error.cause).toBe(broken);
    });

    it('rejects vectors of different lengths with LLMResponseError', async () => {
      const model = new MockEmbeddingModelV4({
        maxEmbeddingsPerCall: 8,
        doEmbed: async ({ values }: EmbedCall) => ({
          embeddings: values.map((_text, position) => [1, position].slice(position)),
          warnings: [],
        }),
      });
      const error = await failure(embedderFromEmbeddingModel(model).embed(texts));
      expect(error).toBeInstanceOf(LLMResponseError);
      expect(error.code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
    });

    it('calls no model for no texts', async () => {
      const model = embeddingModel();
      await expect(embedderFromEmbeddingModel(model).embed([])).resolves.toEqual([]);
      expect(model.doEmbedCalls).toHaveLength(0);
    });
  });
});
