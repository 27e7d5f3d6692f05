import { type ChatMessage, ErrorCodes, LLMRequestError, LLMResponseError, LLMTimeoutError } from '@ctxkit/core';
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';

import { llmClientFromChatModel } from './chat-model-llm-client';

const ask: ChatMessage[] = [
  { role: 'system', content: 'Summarize the conversation in one sentence.' },
  { role: 'user', content: 'The customer moved flight HAT170 to May 21 and paid $120 by card.' },
];

/**
 * FakeListChatModel answering with a whole AIMessage (usage and metadata included), keeping the messages of every call.
 */
class ScriptedChatModel extends FakeListChatModel {
  readonly calls: BaseMessage[][] = [];

  constructor(private readonly answer: AIMessage) {
    super({ responses: [answer.text] });
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    return { generations: [{ text: this.answer.text, message: this.answer }] };
  }
}

/** A fake model that fails with `error` (what a provider package lets through from its SDK). */
class FailingChatModel extends FakeListChatModel {
  constructor(private readonly error: unknown) {
    super({ responses: ['never'] });
  }

  override async _generate(): Promise<never> {
    throw this.error;
  }
}

describe('llmClientFromChatModel', () => {
  describe('#complete', () => {
    it(
      "reads an Anthropic answer's one-hour cache writes and cache-miss diagnosis from the response " + 'metadata',
      async () => {
        // What ChatAnthropic hands back: LangChain's usage, and the Messages API answer's fields in response_metadata.
        const model = new ScriptedChatModel(
          new AIMessage({
            content: 'Summary.',
            usage_metadata: {
              input_tokens: 3560,
              output_tokens: 40,
              total_tokens: 3600,
              input_token_details: { cache_read: 2048, cache_creation: 1500 },
            },
            response_metadata: {
              id: 'msg_2',
              model: 'claude-haiku-4-5-20251001',
              stop_reason: 'end_turn',
              usage: {
                input_tokens: 12,
                output_tokens: 40,
                cache_read_input_tokens: 2048,
                cache_creation_input_tokens: 1500,
                cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
              },
              diagnostics: { cache_miss_reason: { type: 'messages_changed', cache_missed_input_tokens: 1500 } },
            },
          }),
        );
        const answer = await llmClientFromChatModel(model).complete({ messages: ask });
        expect(answer.usage).toEqual({
          input_tokens: 12,
          cache_read_tokens: 2048,
          cache_creation_tokens: 1500,
          cache_creation_1h_tokens: 1200,
          output_tokens: 40,
          total_tokens: 3600,
        });
        expect(answer.cacheMiss).toEqual({ reason: 'messages_changed', missedTokens: 1500 });
      },
    );

    it('invokes the model with the converted messages and maps text, usage, model and finish reason', async () => {
      const model = new ScriptedChatModel(
        new AIMessage({
          content: 'HAT170 moved to May 21, $120 paid by card.',
          usage_metadata: {
            input_tokens: 120,
            output_tokens: 14,
            total_tokens: 134,
            input_token_details: { cache_read: 30, cache_creation: 10 },
          },
          response_metadata: { model_name: 'gpt-4o-mini-2024-07-18', finish_reason: 'stop' },
        }),
      );
      const llm = llmClientFromChatModel(model);
      const answer = await llm.complete({ messages: ask, maxOutputTokens: 64 });
      expect(answer.text).toBe('HAT170 moved to May 21, $120 paid by card.');
      expect(answer.message).toEqual({ role: 'assistant', content: 'HAT170 moved to May 21, $120 paid by card.' });
      expect(answer.usage).toEqual({
        input_tokens: 80,
        cache_read_tokens: 30,
        cache_creation_tokens: 10,
        output_tokens: 14,
        total_tokens: 134,
      });
      expect(answer.model).toBe('gpt-4o-mini-2024-07-18');
      expect(answer.finishReason).toBe('stop');
      expect(llm.name).toBe('langchain:fake-list');
      expect(llm.offline).toBe(false);
      expect(model.calls).toHaveLength(1);
      expect(model.calls[0]![0]).toBeInstanceOf(SystemMessage);
      expect(model.calls[0]![1]).toBeInstanceOf(HumanMessage);
      expect(model.calls[0]!.map((message) => message.text)).toEqual([ask[0]!.content, ask[1]!.content]);
    });

    it('answers with FakeListChatModel in order, and names the client after the model', async () => {
      const llm = llmClientFromChatModel(new FakeListChatModel({ responses: ['First summary.', 'Second summary.'] }), {
        name: 'summaries',
      });
      expect((await llm.complete({ messages: ask })).text).toBe('First summary.');
      expect((await llm.complete({ messages: ask })).text).toBe('Second summary.');
      expect(llm.name).toBe('summaries');
      expect(llm.defaultModel).toBe('fake-list');
    });

    it('binds the tools and maps tool calls back', async () => {
      const model = new FakeStreamingChatModel({
        responses: [new AIMessage('')],
        chunks: [
          new AIMessageChunk({
            content: '',
            tool_calls: [
              { id: 'call_1', name: 'get_reservation_details', args: { reservation_id: 'ABC123' }, type: 'tool_call' },
            ],
          }),
        ],
      });
      const bind = jest.spyOn(model, 'bindTools');
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
      const answer = await llmClientFromChatModel(model).complete({ messages: ask, tools });
      expect(bind).toHaveBeenCalledWith(tools);
      expect(answer.message.tool_calls).toEqual([
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'get_reservation_details', arguments: '{"reservation_id":"ABC123"}' },
        },
      ]);
      expect(answer.text).toBe('');
    });

    it('rejects an empty answer with LLMResponseError', async () => {
      const error = await llmClientFromChatModel(new FakeListChatModel({ responses: [' '] }))
        .complete({ messages: ask })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LLMResponseError);
    });

    it("maps a provider's status error: status, retryable, the body and the wait a 429 asks for", async () => {
      const rateLimited = Object.assign(new Error('429 Rate limit reached for requests'), {
        name: 'RateLimitError',
        status: 429,
        headers: { 'retry-after': '2' },
        error: { message: 'Rate limit reached for requests' },
        lc_error_code: 'MODEL_RATE_LIMIT',
      });
      const error = (await llmClientFromChatModel(new FailingChatModel(rateLimited))
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.code).toBe(ErrorCodes.LLM_REQUEST_FAILED);
      expect(error.status).toBe(429);
      expect(error.retryable).toBe(true);
      expect(error.details).toMatchObject({
        retryAfterMs: 2000,
        sdkError: 'RateLimitError',
        lcErrorCode: 'MODEL_RATE_LIMIT',
      });
      expect(error.details.body).toContain('Rate limit reached');
      const denied = Object.assign(new Error('401 Incorrect API key provided'), {
        status: 401,
        lc_error_code: 'MODEL_AUTHENTICATION',
      });
      const auth = (await llmClientFromChatModel(new FailingChatModel(denied))
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(auth.retryable).toBe(false);
      expect(auth.fix).toMatch(/API key/);
    });

    it('maps a failed connection and any other failure', async () => {
      const refused = Object.assign(new Error('Connection error.'), {
        name: 'APIConnectionError',
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }),
      });
      const connection = (await llmClientFromChatModel(new FailingChatModel(refused))
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(connection.retryable).toBe(true);
      expect(connection.details.networkCode).toBe('ECONNREFUSED');
      const other = (await llmClientFromChatModel(new FakeStreamingChatModel({ thrownErrorString: 'model exploded' }))
        .complete({ messages: ask })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(other).toBeInstanceOf(LLMRequestError);
      expect(other.retryable).toBe(false);
      expect(other.message).toContain('model exploded');
    });

    it('ends the call at the deadline with LLMTimeoutError', async () => {
      const slow = new FakeListChatModel({ responses: ['late'], sleep: 300 });
      const error = (await llmClientFromChatModel(slow, { timeoutMs: 60_000 })
        .complete({ messages: ask, timeoutMs: 30 })
        .catch((e: unknown) => e)) as LLMTimeoutError;
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.timeoutMs).toBe(30);
    });

    it("ends when the caller's signal aborts", async () => {
      const slow = new FakeListChatModel({ responses: ['late'], sleep: 300 });
      const controller = new AbortController();
      const started = Date.now();
      const pending = llmClientFromChatModel(slow).complete({ messages: ask, signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      const error = (await pending.catch((e: unknown) => e)) as LLMTimeoutError;
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.aborted).toBe(true);
      expect(Date.now() - started).toBeLessThan(250);
    });
  });
});
