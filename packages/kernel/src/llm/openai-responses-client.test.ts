import { type ChatMessage, ErrorCodes, LLMRequestError, LLMResponseError } from '@ctxkit/core';

import { json, LoopbackProviderServer } from '../__fixtures__/loopback-provider-server';
import { OpenAIResponsesClient } from './openai-responses-client';

/** A Responses API answer with these output items. */
const response = (
  output: unknown[],
  usage: Record<string, unknown> = {
    input_tokens: 40,
    output_tokens: 6,
    total_tokens: 46,
    input_tokens_details: { cached_tokens: 32 },
  },
) => ({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-5.4-mini-2026-03-17',
  output,
  usage,
});
const said = (text: string) => ({
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});
const compactionItem = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAABpY29tcGFjdGVk' };

describe('OpenAIResponsesClient', () => {
  let server: LoopbackProviderServer;
  let client: OpenAIResponsesClient;
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'You are a travel agent.' },
    { role: 'user', content: 'Where is booking 8JX2?' },
    { role: 'assistant', content: 'It is confirmed for 2026-12-03.' },
    { role: 'user', content: 'Thanks.' },
  ];
  const tools = [{ type: 'function' as const, function: { name: 'find_booking', parameters: { type: 'object' } } }];

  beforeEach(async () => {
    server = await LoopbackProviderServer.start();
    client = new OpenAIResponsesClient({
      baseURL: `${server.url}/v1`,
      apiKey: 'sk-secret',
      env: {},
      retry: { maxRetries: 0 },
    });
  });
  afterEach(async () => server.close());

  it('needs a key for api.openai.com', () => {
    expect(() => new OpenAIResponsesClient({ env: {} })).toThrow(
      expect.objectContaining({ code: ErrorCodes.LLM_NOT_CONFIGURED }),
    );
  });

  it('sends the whole input statelessly with the tools and reads the output items and usage', async () => {
    server.answer(json(200, response([said('Have a good trip.')])));
    const answer = await client.complete({
      messages: conversation,
      tools,
      maxOutputTokens: 200,
      cacheKey: 'support:s1',
    });
    expect(answer.text).toBe('Have a good trip.');
    // ctxkit's input_tokens are those not read from the cache.
    expect(answer.usage).toMatchObject({ input_tokens: 8, output_tokens: 6, cache_read_tokens: 32 });
    const [request] = server.requests;
    expect(request!.url).toBe('/v1/responses');
    expect(request!.body).toEqual({
      model: 'gpt-5.4-mini',
      tools: [{ type: 'function', name: 'find_booking', parameters: { type: 'object' } }],
      input: [
        { type: 'message', role: 'system', content: 'You are a travel agent.' },
        { type: 'message', role: 'user', content: 'Where is booking 8JX2?' },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'It is confirmed for 2026-12-03.' }],
        },
        { type: 'message', role: 'user', content: 'Thanks.' },
      ],
      max_output_tokens: 200,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
  });

  it(
    'asks for a compaction with a compaction trigger last and context management, and answers with the compaction ' +
      'item alone',
    async () => {
      expect(client.providerCompaction).toBe('openai-responses');
      server.answer(json(200, response([compactionItem])));
      const answer = await client.complete({
        messages: conversation,
        tools,
        providerCompaction: { instructions: 'ignored by this provider' },
        cacheKey: 'support:s1',
      });
      expect(answer.message).toEqual({
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'openai', data: compactionItem }],
      });
      const body = server.requests[0]!.body as { input: unknown[]; context_management: unknown };
      expect(body.input.at(-1)).toEqual({ type: 'compaction_trigger' });
      expect(body.input).toHaveLength(5);
      expect(body.context_management).toEqual([{ type: 'compaction' }]);
      // The item goes back first, byte for byte, in place of what it replaced.
      server.answer(json(200, response([said('Seat 14C.')])));
      await client.complete({
        messages: [
          { role: 'system', content: 'You are a travel agent.' },
          answer.message,
          { role: 'user', content: 'Which seat?' },
        ],
      });
      const sent = (server.requests[1]!.body as { input: unknown[] }).input;
      expect(JSON.stringify(sent[1])).toBe(JSON.stringify(compactionItem));
    },
  );

  it('refuses a compaction answer without its item, and passes HTTP errors on', async () => {
    server.answer(json(200, response([said('Here is a summary.')])));
    await expect(client.complete({ messages: conversation, providerCompaction: {} })).rejects.toBeInstanceOf(
      LLMResponseError,
    );
    server.answer(json(500, { error: { message: 'compaction unavailable', type: 'server_error' } }));
    await expect(client.complete({ messages: conversation, providerCompaction: {} })).rejects.toBeInstanceOf(
      LLMRequestError,
    );
  });

  it(
    "sends a helper request as the last turn's request continued, byte for byte, and never a compaction request as " +
      'a turn',
    async () => {
      server.answer(json(200, response([said('ok')])));
      await client.complete({ messages: conversation, tools, cacheKey: 'support:s1', maxOutputTokens: 100 });
      server.answer(json(200, response([compactionItem])), json(200, response([said('<summary>8JX2</summary>')])));
      await client.complete({ messages: conversation.slice(0, 3), providerCompaction: {}, cacheKey: 'support:s1' });
      await client.complete({
        messages: [{ role: 'user', content: 'standalone' }],
        continuation: [{ role: 'user', content: 'Summarize.' }],
        cacheKey: 'support:s1',
        maxOutputTokens: 50,
      });
      const [turn, , helper] = server.requests;
      const prefix = turn!.text.slice(0, turn!.text.indexOf('],"max_output_tokens":'));
      expect(prefix.length).toBeGreaterThan(100);
      expect(helper!.text.startsWith(`${prefix},`)).toBe(true);
      expect((helper!.body as { input: unknown[] }).input.at(-1)).toEqual({
        type: 'message',
        role: 'user',
        content: 'Summarize.',
      });
    },
  );
});
