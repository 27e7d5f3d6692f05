import { CtxkitError, ErrorCodes, LLMRequestError, LLMResponseError, LLMTimeoutError } from '@ctxkit/core';

import { hang, json, LoopbackProviderServer, type ReceivedRequest } from '../__fixtures__/loopback-provider-server';
import { OpenAICompatibleEmbedder } from './openai-compatible-embedder';

const texts = ['Where is my refund?', 'The card was charged twice.', 'Flight HAT170 moved to May 21.'];

/** A deterministic vector of a text: its length, its vowels, its first character code. */
function vectorOf(text: string): number[] {
  return [text.length, (text.match(/[aeiou]/g) ?? []).length, text.charCodeAt(0)];
}

/** An embeddings answer for `input`, its items listed in `order` (the positions of the inputs). */
function embeddings(input: string[], order: number[] = input.map((_text, position) => position)) {
  return {
    object: 'list',
    model: 'text-embedding-3-small',
    data: order.map((index) => ({ object: 'embedding', index, embedding: vectorOf(input[index]!) })),
    usage: { prompt_tokens: 21, total_tokens: 21 },
  };
}

/** Answers every request with the vectors of its own input, its items in reverse order. */
function embeddingServer(request: ReceivedRequest, response: import('node:http').ServerResponse): void {
  const input = (request.body as { input: string[] }).input;
  json(
    200,
    embeddings(
      input,
      input.map((_text, position) => input.length - 1 - position),
    ),
  )(request, response);
}

/** What `promise` rejects with (it must reject: a value is returned as is and fails the assertions). */
const failure = (promise: Promise<unknown>): Promise<CtxkitError> =>
  promise.then(
    (value) => value as CtxkitError,
    (error: unknown) => error as CtxkitError,
  );

describe('OpenAICompatibleEmbedder', () => {
  let server: LoopbackProviderServer;
  let embedder: OpenAICompatibleEmbedder;

  beforeEach(async () => {
    server = await LoopbackProviderServer.start();
    embedder = new OpenAICompatibleEmbedder({ baseURL: `${server.url}/v1`, apiKey: 'sk-test-secret', env: {} });
  });
  afterEach(async () => server.close());

  describe('#constructor', () => {
    it('reads base URL, key and model from the environment, the model defaulting to text-embedding-3-small', () => {
      const env = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/', OPENAI_EMBEDDING_MODEL: 'nomic-embed-text' };
      const fromEnv = new OpenAICompatibleEmbedder({ env });
      expect(fromEnv.baseURL).toBe('http://127.0.0.1:11434/v1');
      expect(fromEnv.model).toBe('nomic-embed-text');
      expect(embedder.model).toBe('text-embedding-3-small');
    });

    it('names the model with the dimensions when they are asked for', () => {
      const options = { baseURL: `${server.url}/v1`, model: 'text-embedding-3-large', dimensions: 256, env: {} };
      expect(new OpenAICompatibleEmbedder(options).model).toBe('text-embedding-3-large@256');
    });

    it('refuses api.openai.com without a key', () => {
      expect(() => new OpenAICompatibleEmbedder({ env: {} })).toThrow(
        expect.objectContaining({ code: ErrorCodes.LLM_NOT_CONFIGURED }),
      );
    });
  });

  describe('#embed', () => {
    it("sends an embeddings request and returns the vectors in the texts' order, sorted by index", async () => {
      server.answer(json(200, embeddings(texts, [2, 0, 1])));
      const vectors = await embedder.embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      const [request] = server.requests;
      expect(request!.method).toBe('POST');
      expect(request!.url).toBe('/v1/embeddings');
      expect(request!.headers.authorization).toBe('Bearer sk-test-secret');
      expect(request!.body).toEqual({ model: 'text-embedding-3-small', input: texts, encoding_format: 'float' });
    });

    it('sends the dimensions and the model of the options, and no authorization header without a key', async () => {
      const options = { baseURL: `${server.url}/v1`, model: 'text-embedding-3-large', dimensions: 3, env: {} };
      const local = new OpenAICompatibleEmbedder(options);
      server.answer(json(200, embeddings(texts)));
      await local.embed(texts);
      const [request] = server.requests;
      expect(request!.headers.authorization).toBeUndefined();
      const body = { model: 'text-embedding-3-large', input: texts, dimensions: 3, encoding_format: 'float' };
      expect(request!.body).toEqual(body);
    });

    it('reads base64 vectors when asked for them', async () => {
      const base64 = (vector: number[]) => Buffer.from(new Float32Array(vector).buffer).toString('base64');
      const answer = embeddings(texts);
      const data = answer.data.map((item) => ({ ...item, embedding: base64(item.embedding) }));
      server.answer(json(200, { ...answer, data }));
      const options = { baseURL: `${server.url}/v1`, apiKey: 'k', encodingFormat: 'base64' as const, env: {} };
      const vectors = await new OpenAICompatibleEmbedder(options).embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      expect((server.requests[0]!.body as { encoding_format: string }).encoding_format).toBe('base64');
    });

    it('sends at most maxInputsPerRequest texts a request, one request after the other', async () => {
      const options = { baseURL: `${server.url}/v1`, apiKey: 'k', maxInputsPerRequest: 2, env: {} };
      server.answer(embeddingServer);
      const vectors = await new OpenAICompatibleEmbedder(options).embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      const inputs = server.requests.map((request) => (request.body as { input: string[] }).input);
      expect(inputs).toEqual([texts.slice(0, 2), texts.slice(2)]);
    });

    it('retries a 500, then succeeds', async () => {
      server.answer(json(500, { error: { message: 'internal failure' } }), json(200, embeddings(texts)));
      await expect(embedder.embed(texts)).resolves.toEqual(texts.map(vectorOf));
      expect(server.requests).toHaveLength(2);
    });

    it('gives up after retries on repeated 500s with a retryable LLMRequestError, the key kept secret', async () => {
      server.answer(json(500, { error: { message: 'internal failure' } }));
      const error = await failure(embedder.embed(texts));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect((error as LLMRequestError).status).toBe(500);
      expect((error as LLMRequestError).retryable).toBe(true);
      expect(error.details).toMatchObject({ attempts: 3, client: 'openai-compatible:text-embedding-3-small' });
      expect(error.message).toMatch(/HTTP 500: internal failure/);
      expect(JSON.stringify(error.toJSON())).not.toContain('sk-test-secret');
    });

    it('does not retry a 400 and reports the reason', async () => {
      const reason = { message: "'input' : input must be a string or an array", type: 'invalid_request_error' };
      server.answer(json(400, { error: reason }));
      const error = await failure(embedder.embed(texts));
      expect((error as LLMRequestError).retryable).toBe(false);
      expect(error.message).toMatch(/input must be a string/);
      expect(server.requests).toHaveLength(1);
    });

    it('times out on a server that hangs with LLMTimeoutError, after retrying the timed-out attempts', async () => {
      const options = { baseURL: `${server.url}/v1`, apiKey: 'k', timeoutMs: 50, retry: { maxRetries: 1 }, env: {} };
      server.answer(hang());
      const error = await failure(new OpenAICompatibleEmbedder(options).embed(texts));
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.code).toBe(ErrorCodes.LLM_TIMEOUT);
      expect(error.details).toMatchObject({ timeoutMs: 50, aborted: false, attempts: 2 });
    });

    it('ends at once when the caller aborts', async () => {
      server.answer(hang());
      const controller = new AbortController();
      const pending = embedder.embed(texts, { signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      const error = await failure(pending);
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.aborted).toBe(true);
    });

    it('rejects an answer without one vector per text with LLMResponseError', async () => {
      server.answer(json(200, embeddings(texts, [0, 1])));
      const error = await failure(embedder.embed(texts));
      expect(error).toBeInstanceOf(LLMResponseError);
      expect(error.code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
      expect(error.message).toMatch(/expected 3 vectors, got 2/);
      server.answer(json(200, embeddings(texts, [0, 1, 1])));
      await expect(embedder.embed(texts)).rejects.toThrow(/index 1/);
    });

    it('rejects vectors of another length than the dimensions asked for', async () => {
      const options = { baseURL: `${server.url}/v1`, apiKey: 'k', dimensions: 256, env: {} };
      server.answer(json(200, embeddings(texts)));
      const pending = new OpenAICompatibleEmbedder(options).embed(texts);
      await expect(pending).rejects.toThrow(/expected vectors of 256 numbers, got 3/);
    });

    it('sends nothing for no texts', async () => {
      await expect(embedder.embed([])).resolves.toEqual([]);
      expect(server.requests).toHaveLength(0);
    });
  });
});
