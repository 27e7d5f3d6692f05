import {
  type ChatMessage,
  CtxkitError,
  ErrorCodes,
  LLMRequestError,
  LLMResponseError,
  LLMTimeoutError,
  ProviderPayloadError,
} from '@ctxkit/core';

import {
  hang,
  json,
  LoopbackProviderServer,
  raw,
  refusedUrl,
  truncated,
} from '../__fixtures__/loopback-provider-server';
import { OpenAICompatibleClient } from './openai-compatible-client';

const ask: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Say hi.' },
];
const chat = (
  message: Record<string, unknown>,
  usage: Record<string, unknown> = { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    { index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' },
  ],
  usage,
});

async function failure(promise: Promise<unknown>): Promise<CtxkitError> {
  try {
    await promise;
  } catch (error) {
    return error as CtxkitError;
  }
  throw new Error('expected a rejection');
}

describe('OpenAICompatibleClient', () => {
  let server: LoopbackProviderServer;
  let client: OpenAICompatibleClient;

  beforeEach(async () => {
    server = await LoopbackProviderServer.start();
    client = new OpenAICompatibleClient({
      baseURL: `${server.url}/v1`,
      apiKey: 'sk-test-secret',
      model: 'gpt-4o-mini',
      env: {},
    });
  });
  afterEach(async () => server.close());

  describe('#constructor', () => {
    it('reads base URL, key and model from the environment', () => {
      const fromEnv = new OpenAICompatibleClient({
        env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/', OPENAI_MODEL: 'llama3.1' },
      });
      expect(fromEnv.baseURL).toBe('http://127.0.0.1:11434/v1');
      expect(fromEnv.defaultModel).toBe('llama3.1');
      expect(fromEnv.name).toBe('openai-compatible:llama3.1');
      expect(fromEnv.offline).toBe(false);
    });

    it('refuses api.openai.com without a key', () => {
      expect(() => new OpenAICompatibleClient({ env: {} })).toThrow(
        expect.objectContaining({ code: ErrorCodes.LLM_NOT_CONFIGURED }),
      );
    });
  });

  describe('#complete', () => {
    it('sends a chat completions request and maps the answer and usage', async () => {
      server.answer(
        json(
          200,
          chat(
            { content: 'Hi.' },
            { prompt_tokens: 20, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 8 } },
          ),
        ),
      );
      const answer = await client.complete({ messages: ask, maxOutputTokens: 50, temperature: 0 });
      expect(answer.text).toBe('Hi.');
      expect(answer.message).toEqual({ role: 'assistant', content: 'Hi.' });
      expect(answer.usage).toEqual({
        input_tokens: 12,
        output_tokens: 3,
        cache_creation_tokens: 0,
        cache_read_tokens: 8,
        total_tokens: 23,
      });
      expect(answer.model).toBe('gpt-4o-mini-2024-07-18');
      expect(answer.finishReason).toBe('stop');
      const [request] = server.requests;
      expect(request!.url).toBe('/v1/chat/completions');
      expect(request!.headers.authorization).toBe('Bearer sk-test-secret');
      expect(request!.body).toEqual({ model: 'gpt-4o-mini', messages: ask, max_tokens: 50, temperature: 0 });
    });

    it('sends tools and maps tool calls back', async () => {
      const toolCall = {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
      };
      server.answer(json(200, chat({ content: null, tool_calls: [toolCall] })));
      const tools = [
        {
          type: 'function' as const,
          function: {
            name: 'get_user_details',
            parameters: { type: 'object', properties: { user_id: { type: 'string' } } },
          },
        },
      ];
      const answer = await client.complete({ messages: ask, tools, responseFormat: 'json' });
      expect(answer.message.tool_calls).toEqual([toolCall]);
      expect(answer.text).toBe('');
      expect((server.requests[0]!.body as { tools: unknown }).tools).toEqual(tools);
      expect((server.requests[0]!.body as { response_format: unknown }).response_format).toEqual({
        type: 'json_object',
      });
    });

    it('retries a 429 after the retry-after it asks for, then succeeds', async () => {
      server.answer(
        json(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '0' }),
        json(200, chat({ content: 'ok' })),
      );
      const answer = await client.complete({ messages: ask });
      expect(answer.text).toBe('ok');
      expect(server.requests).toHaveLength(2);
    });

    it('gives up after retries on repeated 500s with a retryable LLMRequestError', async () => {
      server.answer(json(500, { error: { message: 'internal failure' } }));
      const error = await failure(client.complete({ messages: ask }));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.code).toBe(ErrorCodes.LLM_REQUEST_FAILED);
      expect((error as LLMRequestError).status).toBe(500);
      expect((error as LLMRequestError).retryable).toBe(true);
      expect(error.details.attempts).toBe(3);
      expect(error.message).toMatch(/HTTP 500: internal failure/);
      expect(server.requests).toHaveLength(3);
    });

    it('does not retry a 400 and reports the provider reason', async () => {
      server.answer(
        json(400, {
          error: {
            message:
              "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with " +
              "'tool_calls'.",
            type: 'invalid_request_error',
          },
        }),
      );
      const error = await failure(client.complete({ messages: ask }));
      expect((error as LLMRequestError).status).toBe(400);
      expect((error as LLMRequestError).retryable).toBe(false);
      expect(error.message).toMatch(/must be a response to a preceeding message/);
      expect(server.requests).toHaveLength(1);
      expect(JSON.stringify(error.toJSON())).not.toContain('sk-test-secret');
    });

    it('rejects a malformed JSON body with LLMResponseError', async () => {
      server.answer(raw(200, '{"choices": [ {"message": '));
      const error = await failure(client.complete({ messages: ask }));
      expect(error).toBeInstanceOf(LLMResponseError);
      expect(error.code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
      expect(error.message).toMatch(/not valid JSON/);
    });

    it('rejects an answer without choices', async () => {
      server.answer(json(200, { id: 'x', choices: [] }));
      await expect(client.complete({ messages: ask })).rejects.toThrow(/no choices/);
    });

    it('rejects an empty answer', async () => {
      server.answer(json(200, chat({ content: '' })));
      await expect(client.complete({ messages: ask })).rejects.toThrow(/empty/);
    });

    it('reports a body cut short after the headers as a retryable LLMRequestError', async () => {
      server.answer(truncated(JSON.stringify(chat({ content: 'partial answer' }))));
      const error = await failure(client.complete({ messages: ask }));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.message).toMatch(/closed before the whole answer arrived \(HTTP 200\)/);
      expect((error as LLMRequestError).retryable).toBe(true);
      // The SDK retries failed connections and timed-out attempts, not a body cut short once the
      // headers of a 2xx answer have arrived: one request, where the hand-written client made three.
      expect(error.details.attempts).toBe(1);
      expect(server.requests).toHaveLength(1);
    });

    it('times out on a server that hangs, after retrying the timed-out attempts', async () => {
      server.answer(hang());
      const error = await failure(client.complete({ messages: ask, timeoutMs: 50 }));
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.code).toBe(ErrorCodes.LLM_TIMEOUT);
      expect(error.details.timeoutMs).toBe(50);
      expect(error.details.aborted).toBe(false);
      // The SDK retries a timed-out attempt like a failed connection (the hand-written client gave
      // up after the first); retry.maxRetries 0 makes one attempt the whole deadline.
      expect(error.details.attempts).toBe(3);
    });

    it(
      'sends the conversation as prompt_cache_key where asked (OpenAI by default), never to other servers by ' +
        'default',
      async () => {
        server.answer(json(200, chat({ content: 'Hi.' })));
        await client.complete({ messages: ask, cacheKey: 'support-agent:conversation-42' });
        expect(server.requests.at(-1)!.body).not.toHaveProperty('prompt_cache_key');
        const keyed = new OpenAICompatibleClient({
          baseURL: `${server.url}/v1`,
          apiKey: 'sk-test-secret',
          sendPromptCacheKey: true,
          env: {},
        });
        server.answer(json(200, chat({ content: 'Hi.' })));
        await keyed.complete({ messages: ask, cacheKey: 'support-agent:conversation-42' });
        expect(server.requests.at(-1)!.body).toMatchObject({ prompt_cache_key: 'support-agent:conversation-42' });
      },
    );

    it(
      'sends prompt_cache_options and prompt_cache_retention where configured, and nothing of them by ' + 'default',
      async () => {
        server.answer(json(200, chat({ content: 'Hi.' })));
        await client.complete({ messages: ask });
        expect(server.requests.at(-1)!.body).not.toHaveProperty('prompt_cache_options');
        expect(server.requests.at(-1)!.body).not.toHaveProperty('prompt_cache_retention');
        const configured = new OpenAICompatibleClient({
          baseURL: `${server.url}/v1`,
          apiKey: 'k',
          promptCacheOptions: { mode: 'implicit', ttl: '30m' },
          promptCacheRetention: '24h',
          env: {},
        });
        await configured.complete({ messages: ask });
        expect(server.requests.at(-1)!.body).toMatchObject({
          prompt_cache_options: { mode: 'implicit', ttl: '30m' },
          prompt_cache_retention: '24h',
        });
      },
    );

    it('reads cache reads and writes from a recorded usage: both are inside prompt_tokens', async () => {
      // The usage of a chat completion as recorded from a model that reports cache writes.
      const usage = {
        prompt_tokens: 5200,
        completion_tokens: 61,
        total_tokens: 5261,
        prompt_tokens_details: { cached_tokens: 4096, cache_write_tokens: 1000, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      };
      server.answer(json(200, chat({ content: 'Hi.' }, usage)));
      const answer = await client.complete({ messages: ask });
      expect(answer.usage).toEqual({
        input_tokens: 104,
        cache_read_tokens: 4096,
        cache_creation_tokens: 1000,
        output_tokens: 61,
        total_tokens: 5261,
      });
    });

    it("sends a helper request as the last turn's request continued, under the same prompt_cache_key", async () => {
      const keyed = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        apiKey: 'k',
        model: 'gpt-5.6',
        sendPromptCacheKey: true,
        env: {},
      });
      const tools = [
        {
          type: 'function' as const,
          function: { name: 'get_reservation', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
        },
      ];
      const turn: ChatMessage[] = [
        { role: 'system', content: 'You are a travel agent.' },
        { role: 'user', content: 'Where is booking 8JX2?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_reservation', arguments: '{"id":"8JX2"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"from":"SFO","to":"JFK"}' },
      ];
      server.answer(json(200, chat({ content: 'SFO to JFK.' })));
      await keyed.complete({ messages: turn, tools, cacheKey: 'support:s1', maxOutputTokens: 1024 });
      const instruction: ChatMessage = { role: 'user', content: 'Extract the facts as JSON.' };
      await keyed.complete({
        messages: [{ role: 'user', content: 'Extract from: ...' }],
        continuation: [instruction],
        cacheKey: 'support:s1',
        maxOutputTokens: 200,
        responseFormat: 'json',
      });
      await keyed.complete({
        messages: [{ role: 'user', content: 'Extract from: ...' }],
        continuation: [instruction],
        cacheKey: 'support:other',
      });

      const [sentTurn, helper, alone] = server.requests;
      const end = sentTurn!.text.indexOf('],"max_tokens":');
      const prefix = sentTurn!.text.slice(0, end);
      expect(JSON.parse(`${prefix}]}`)).toEqual({
        model: 'gpt-5.6',
        tools: (sentTurn!.body as { tools: unknown }).tools,
        messages: (sentTurn!.body as { messages: unknown }).messages,
      });
      expect(helper!.text.startsWith(`${prefix},`)).toBe(true);
      expect(helper!.body).toMatchObject({
        max_tokens: 200,
        response_format: { type: 'json_object' },
        prompt_cache_key: 'support:s1',
      });
      expect((helper!.body as { messages: unknown[] }).messages.at(-1)).toEqual(instruction);
      expect((alone!.body as { messages: unknown[] }).messages).toEqual([
        { role: 'user', content: 'Extract from: ...' },
      ]);
    });

    it('makes one attempt when retry.maxRetries is 0', async () => {
      const once = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-test-secret',
        retry: { maxRetries: 0 },
        env: {},
      });
      server.answer(json(503, { error: { message: 'overloaded' } }));
      const error = await failure(once.complete({ messages: ask }));
      expect((error as LLMRequestError).status).toBe(503);
      expect(error.details.attempts).toBe(1);
      expect(server.requests).toHaveLength(1);
    });

    it('reports the wait a 429 asks for when no retry is left', async () => {
      const once = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-test-secret',
        retry: { maxRetries: 0 },
        env: {},
      });
      server.answer(json(429, { error: { message: 'Rate limit reached for requests' } }, { 'retry-after': '7' }));
      const error = await failure(once.complete({ messages: ask }));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect((error as LLMRequestError).retryable).toBe(true);
      expect(error.details).toMatchObject({ status: 429, retryAfterMs: 7000, sdkError: 'RateLimitError' });
      expect(error.message).toMatch(/HTTP 429: Rate limit reached for requests/);
    });

    it('maps a 401 to a non-retryable LLMRequestError that says to check the key', async () => {
      server.answer(json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      const error = await failure(client.complete({ messages: ask }));
      expect((error as LLMRequestError).retryable).toBe(false);
      expect(error.details.sdkError).toBe('AuthenticationError');
      expect(error.fix).toMatch(/API key/);
      expect(server.requests).toHaveLength(1);
      expect(JSON.stringify(error.toJSON())).not.toContain('sk-test-secret');
    });

    it('sends no authorization header to a local server without a key, and the extra headers it is given', async () => {
      const local = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        model: 'llama3.1',
        headers: { 'HTTP-Referer': 'https://example.test' },
        env: {},
      });
      server.answer(json(200, chat({ content: 'Hi.' })));
      await local.complete({ messages: ask, maxOutputTokens: 8 });
      const [request] = server.requests;
      expect(request!.headers.authorization).toBeUndefined();
      expect(request!.headers['http-referer']).toBe('https://example.test');
      expect(request!.body).toEqual({ model: 'llama3.1', messages: ask, max_tokens: 8 });
    });

    it('sends max_completion_tokens when told to, and the request model over the default', async () => {
      const named = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        apiKey: 'k',
        maxTokensField: 'max_completion_tokens',
        env: {},
      });
      server.answer(json(200, chat({ content: 'Hi.' })));
      await named.complete({ messages: ask, maxOutputTokens: 12, model: 'gpt-4.1-nano' });
      expect(server.requests[0]!.body).toEqual({ model: 'gpt-4.1-nano', messages: ask, max_completion_tokens: 12 });
    });

    it('sends through the fetch it is given', async () => {
      const seen: string[] = [];
      const recording: typeof fetch = (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      };
      const viaFetch = new OpenAICompatibleClient({
        baseURL: `${server.url}/v1`,
        apiKey: 'k',
        fetch: recording,
        env: {},
      });
      server.answer(json(200, chat({ content: 'Hi.' })));
      await viaFetch.complete({ messages: ask });
      expect(seen).toEqual([`${server.url}/v1/chat/completions`]);
    });

    it('ends at once when the caller aborts', async () => {
      server.answer(hang());
      const controller = new AbortController();
      const pending = client.complete({ messages: ask, signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      const error = await failure(pending);
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.aborted).toBe(true);
    });

    it('reports a refused connection as a retryable network error after retries', async () => {
      const refused = new OpenAICompatibleClient({ baseURL: `${await refusedUrl()}/v1`, model: 'llama3.1', env: {} });
      const error = await failure(refused.complete({ messages: ask }));
      expect(error).toBeInstanceOf(LLMRequestError);
      expect((error as LLMRequestError).retryable).toBe(true);
      expect(error.details.networkCode).toBe('ECONNREFUSED');
      expect(error.details.attempts).toBe(3);
    });

    it('refuses to send a payload the provider would reject', async () => {
      server.answer(json(200, chat({ content: 'never' })));
      const orphan: ChatMessage[] = [
        { role: 'user', content: 'q' },
        { role: 'tool', tool_call_id: 'x', content: 'r' },
      ];
      await expect(client.complete({ messages: orphan })).rejects.toBeInstanceOf(ProviderPayloadError);
      expect(server.requests).toHaveLength(0);
    });
  });
});
