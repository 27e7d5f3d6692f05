/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import { type ChatMessage, ErrorCodes, LLMRequestError, LLMResponseError, LLMTimeoutError } from '@ctxkit/core';
import { APICallError, generateText } from 'ai';
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';

import { type CallableLanguageModel, llmClientFromLanguageModel } from './language-model-llm-client';
import { generated } from './testing/scripted-model';

const ask: ChatMessage[] = [
  { role: 'system', content: 'Summarize the conversation in one sentence.' },
  { role: 'user', content: 'The customer moved flight HAT170 to May 21 and paid $120 by card.' },
];

const usage = {
  inputTokens: { total: 120, noCache: 80, cacheRead: 30, cacheWrite: 10 },
  outputTokens: { total: 14, text: 14, reasoning: 0 },
};

function answering(text: string): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doGenerate: async () => ({ ...generated({ text }), usage, response: { modelId: 'mock-model-2026-01' } }),
  });
}

/** A model that answers only when its abort signal fires (then rejects as fetch does). */
function hanging(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: (options) =>
      new Promise((_resolve, reject) => {
        options.abortSignal?.addEventListener(
          'abort',
          () => reject(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })),
          { once: true },
        );
      }),
  });
}

describe('llmClientFromLanguageModel', () => {
  describe('#complete', () => {
    it(
      "sends the messages as the model's prompt with the request's settings, and maps text, usage, model and " +
        'finish reason',
      async () => {
        const model = answering('HAT170 moved to May 21, $120 paid by card.');
        const llm = llmClientFromLanguageModel(model);
        const answer = await llm.complete({
          messages: ask,
          maxOutputTokens: 64,
          temperature: 0,
          responseFormat: 'json',
          model: 'ignored-model',
        });
        expect(answer.text).toBe('HAT170 moved to May 21, $120 paid by card.');
        expect(answer.message).toEqual({ role: 'assistant', content: 'HAT170 moved to May 21, $120 paid by card.' });
        expect(answer.usage).toEqual({
          input_tokens: 80,
          cache_read_tokens: 30,
          cache_creation_tokens: 10,
          output_tokens: 14,
          total_tokens: 134,
        });
        expect(answer.model).toBe('mock-model-2026-01');
        expect(answer.finishReason).toBe('stop');
        expect(llm.name).toBe('ai-sdk:mock-provider:mock-model');
        expect(llm.defaultModel).toBe('mock-model');
        expect(llm.offline).toBe(false);
        const [call] = model.doGenerateCalls;
        expect(call!.prompt).toEqual([
          { role: 'system', content: 'Summarize the conversation in one sentence.' },
          {
            role: 'user',
            content: [{ type: 'text', text: 'The customer moved flight HAT170 to May 21 and paid $120 by card.' }],
          },
        ]);
        expect(call).toMatchObject({ maxOutputTokens: 64, temperature: 0, responseFormat: { type: 'json' } });
        expect(call!.abortSignal).toBeDefined();
      },
    );

    it(
      "reads an Anthropic answer's one-hour cache writes from the raw usage and its cache-miss diagnosis from the " +
        'response body',
      async () => {
        // What an Anthropic provider package hands back: the standard usage with the provider's own under raw, and the
        // answer's body.
        const raw = {
          input_tokens: 12,
          output_tokens: 40,
          cache_read_input_tokens: 2048,
          cache_creation_input_tokens: 1500,
          cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
        };
        const body = {
          id: 'msg_2',
          type: 'message',
          usage: raw,
          diagnostics: { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 2048 } },
        };
        const model = new MockLanguageModelV4({
          doGenerate: async () => ({
            ...generated({ text: 'Summary.' }),
            usage: {
              inputTokens: { total: 3560, noCache: 12, cacheRead: 2048, cacheWrite: 1500 },
              outputTokens: { total: 40, text: 40, reasoning: 0 },
              raw,
            },
            response: { body },
          }),
        });
        const answer = await llmClientFromLanguageModel(model).complete({ messages: ask });
        expect(answer.usage).toEqual({
          input_tokens: 12,
          cache_read_tokens: 2048,
          cache_creation_tokens: 1500,
          cache_creation_1h_tokens: 1200,
          output_tokens: 40,
          total_tokens: 3600,
        });
        expect(answer.cacheMiss).toEqual({ reason: 'system_changed', missedTokens: 2048 });
        // An OpenAI answer (no split, no diagnosis) reports neither.
        const plain = await llmClientFromLanguageModel(answering('ok')).complete({ messages: ask });
        expect(plain.usage).not.toHaveProperty('cache_creation_1h_tokens');
        expect(plain).not.toHaveProperty('cacheMiss');
      },
    );

    it('sends the prompt generateText would send for the same messages', async () => {
      const direct = answering('ok');
      const viaGenerateText = answering('ok');
      await llmClientFromLanguageModel(direct).complete({ messages: ask });
      await generateText({
        model: viaGenerateText,
        system: ask[0]!.content as string,
        messages: [{ role: 'user', content: ask[1]!.content as string }],
      });
      expect(direct.doGenerateCalls[0]!.prompt).toEqual(viaGenerateText.doGenerateCalls[0]!.prompt);
    });

    it('sends tools as function tools and maps tool calls back', async () => {
      const model = new MockLanguageModelV4({
        doGenerate: async () =>
          generated({
            calls: [{ id: 'call_1', name: 'get_reservation_details', input: { reservation_id: 'ABC123' } }],
          }),
      });
      const tools = [
        {
          type: 'function' as const,
          function: {
            name: 'get_reservation_details',
            description: 'Look a reservation up.',
            parameters: { type: 'object', properties: { reservation_id: { type: 'string' } } },
          },
        },
      ];
      const answer = await llmClientFromLanguageModel(model).complete({ messages: ask, tools });
      expect(answer.message.tool_calls).toEqual([
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'get_reservation_details', arguments: '{"reservation_id":"ABC123"}' },
        },
      ]);
      expect(answer.finishReason).toBe('tool-calls');
      expect(model.doGenerateCalls[0]!.tools).toEqual([
        {
          type: 'function',
          name: 'get_reservation_details',
          description: 'Look a reservation up.',
          inputSchema: tools[0]!.function.parameters,
        },
      ]);
    });

    it('keeps reasoning parts on the message', async () => {
      const model = new MockLanguageModelV4({
        doGenerate: async () => ({
          ...generated({ text: 'Done.' }),
          content: [
            { type: 'reasoning', text: 'Check the dates.' },
            { type: 'text', text: 'Done.' },
          ],
        }),
      });
      const answer = await llmClientFromLanguageModel(model).complete({ messages: ask });
      expect(answer.text).toBe('Done.');
      expect(answer.message.reasoning).toEqual([
        { provider: 'ai-sdk', data: { index: 0, part: { type: 'reasoning', text: 'Check the dates.' } } },
      ]);
    });

    it('rejects an empty answer with LLMResponseError', async () => {
      const error = await llmClientFromLanguageModel(answering('  '))
        .complete({ messages: ask })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LLMResponseError);
      expect((error as LLMResponseError).message).toMatch(/empty/);
    });

    it("maps the provider's APICallError: status, retryable, the body and the wait a 429 asks for", async () => {
      const rateLimited = new APICallError({
        message: 'Rate limit reached for requests',
        url: 'https://api.example.test/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { 'Retry-After': '2' },
        responseBody: '{"error":{"message":"Rate limit reached for requests"}}',
        isRetryable: true,
      });
      const model = new MockLanguageModelV4({ doGenerate: async () => Promise.reject(rateLimited) });
      const error = (await llmClientFromLanguageModel(model)
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.code).toBe(ErrorCodes.LLM_REQUEST_FAILED);
      expect(error.status).toBe(429);
      expect(error.retryable).toBe(true);
      expect(error.details).toMatchObject({
        retryAfterMs: 2000,
        sdkError: 'APICallError',
        url: 'https://api.example.test/v1/chat/completions',
      });
      expect(error.details.body).toContain('Rate limit reached');
      expect(error.cause).toBe(rateLimited);
    });

    it('maps a failed connection and an unreadable answer', async () => {
      const refused = new APICallError({
        message: 'Cannot connect to API: fetch failed',
        url: 'http://127.0.0.1:9/v1',
        requestBodyValues: {},
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        isRetryable: true,
      });
      const connection = (await llmClientFromLanguageModel(
        new MockLanguageModelV4({ doGenerate: async () => Promise.reject(refused) }),
      )
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(connection.retryable).toBe(true);
      expect(connection.details.networkCode).toBe('ECONNREFUSED');
      const unreadable = Object.assign(new Error('Invalid JSON response'), { name: 'AI_JSONParseError' });
      const response = await llmClientFromLanguageModel(
        new MockLanguageModelV4({ doGenerate: async () => Promise.reject(unreadable) }),
      )
        .complete({ messages: ask })
        .catch((e: unknown) => e);
      expect(response).toBeInstanceOf(LLMResponseError);
    });

    it('aborts the call at the deadline with LLMTimeoutError', async () => {
      const model = hanging();
      const llm = llmClientFromLanguageModel(model, { timeoutMs: 60_000 });
      const error = (await llm.complete({ messages: ask, timeoutMs: 30 }).catch((e: unknown) => e)) as LLMTimeoutError;
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.timeoutMs).toBe(30);
      expect(model.doGenerateCalls[0]!.abortSignal!.aborted).toBe(true);
    });

    it("ends when the caller's signal aborts", async () => {
      const controller = new AbortController();
      const pending = llmClientFromLanguageModel(hanging()).complete({ messages: ask, signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      const error = (await pending.catch((e: unknown) => e)) as LLMTimeoutError;
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.aborted).toBe(true);
    });
  });

  describe('#llmClientFromLanguageModel', () => {
    it('refuses a model id string and a model of an older specification, saying what to pass', () => {
      expect(() => llmClientFromLanguageModel('openai/gpt-4o-mini' as unknown as CallableLanguageModel)).toThrow(
        expect.objectContaining({ code: ErrorCodes.CONFIG_INVALID, message: expect.stringMatching(/model object/) }),
      );
      expect(() => llmClientFromLanguageModel(new MockLanguageModelV3() as unknown as CallableLanguageModel)).toThrow(
        /specification "v3"/,
      );
    });

    it('takes a name and provider options', async () => {
      const model = answering('ok');
      const llm = llmClientFromLanguageModel(model, {
        name: 'summaries',
        providerOptions: { openai: { reasoningEffort: 'low' } },
      });
      await llm.complete({ messages: ask });
      expect(llm.name).toBe('summaries');
      expect(model.doGenerateCalls[0]!.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });
    });
  });
});
