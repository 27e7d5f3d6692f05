import {
  type ChatMessage,
  ErrorCodes,
  LLMRequestError,
  LLMResponseError,
  LLMTimeoutError,
  ProviderPayloadError,
} from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import { hang, json, LoopbackProviderServer, raw, refusedUrl } from '../__fixtures__/loopback-provider-server';
import { AnthropicClient } from './anthropic-client';

const reply = (content: unknown[], usage: Record<string, unknown> = { input_tokens: 30, output_tokens: 5 }) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5-20251001',
  content,
  stop_reason: content.some((b) => (b as { type: string }).type === 'tool_use') ? 'tool_use' : 'end_turn',
  usage,
});

describe('AnthropicClient', () => {
  let server: LoopbackProviderServer;
  let client: AnthropicClient;

  beforeEach(async () => {
    server = await LoopbackProviderServer.start();
    client = new AnthropicClient({ baseURL: server.url, apiKey: 'sk-ant-secret', env: {} });
  });
  afterEach(async () => server.close());

  describe('#constructor', () => {
    it('needs a key and reads the rest from the environment', () => {
      expect(() => new AnthropicClient({ env: {} })).toThrow(
        expect.objectContaining({ code: ErrorCodes.LLM_NOT_CONFIGURED }),
      );
      const fromEnv = new AnthropicClient({
        env: {
          ANTHROPIC_API_KEY: 'k',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1',
          ANTHROPIC_MODEL: 'claude-sonnet-4',
        },
      });
      expect(fromEnv.baseURL).toBe('http://127.0.0.1:9');
      expect(fromEnv.defaultModel).toBe('claude-sonnet-4');
    });
  });

  describe('#complete', () => {
    it('sends the system apart with version and key headers, and maps usage with cache fields', async () => {
      server.answer(
        json(
          200,
          reply([{ type: 'text', text: 'Hello.' }], {
            input_tokens: 30,
            output_tokens: 5,
            cache_read_input_tokens: 100,
            cache_creation_input_tokens: 10,
          }),
        ),
      );
      const answer = await client.complete({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        maxOutputTokens: 64,
      });
      expect(answer.text).toBe('Hello.');
      expect(answer.usage).toEqual({
        input_tokens: 30,
        output_tokens: 5,
        cache_creation_tokens: 10,
        cache_read_tokens: 100,
        total_tokens: 145,
      });
      expect(answer.finishReason).toBe('end_turn');
      const [request] = server.requests;
      expect(request!.url).toBe('/v1/messages');
      // The SDK sends the key as a bearer token (the hand-written client sent x-api-key).
      expect(request!.headers.authorization).toBe('Bearer sk-ant-secret');
      expect(request!.headers['anthropic-version']).toBe('2023-06-01');
      // The end of the system prompt and of the newest message are cache breakpoints.
      expect(request!.body).toEqual({
        model: 'claude-haiku-4-5',
        max_tokens: 64,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      });
    });

    it(
      'sends each system message as a block of its own: a changed summary leaves the prompt block and its ' +
        'breakpoint as they were',
      async () => {
        const prompt = 'You are a travel agent. Follow the airline policy.';
        const payload = (summary: string) => [
          { role: 'system' as const, content: prompt },
          { role: 'system' as const, content: `<conversation_summary>${summary}</conversation_summary>` },
          { role: 'system' as const, content: '{"user_id":"amelia_davis_8890"}' },
          { role: 'user' as const, content: 'Cancel my flight, please.' },
        ];
        const systems: unknown[] = [];
        for (const summary of ['The user asked about bags.', 'The user asked about bags, then about seats.']) {
          server.answer(json(200, reply([{ type: 'text', text: 'Sure.' }], { input_tokens: 40, output_tokens: 2 })));
          await client.complete({ messages: payload(summary) });
          systems.push((server.requests.at(-1)!.body as { system: unknown }).system);
        }
        const breakpoint = { type: 'ephemeral' };
        expect(systems[0]).toEqual([
          { type: 'text', text: prompt, cache_control: breakpoint },
          { type: 'text', text: '\n\n<conversation_summary>The user asked about bags.</conversation_summary>' },
          { type: 'text', text: '\n\n{"user_id":"amelia_davis_8890"}', cache_control: breakpoint },
        ]);
        expect((systems[1] as unknown[])[0]).toEqual((systems[0] as unknown[])[0]);
        expect((systems[1] as unknown[])[1]).not.toEqual((systems[0] as unknown[])[1]);
        // Within the API's four breakpoints: the prompt, the end of the system blocks, the newest message.
        expect(JSON.stringify(server.requests.at(-1)!.body).split('cache_control').length - 1).toBe(3);
      },
    );

    it('marks no cache breakpoint with promptCaching off, and never on a thinking block', async () => {
      const plain = new AnthropicClient({
        apiKey: 'sk-ant-secret',
        baseURL: server.url,
        promptCaching: false,
        retry: { maxRetries: 0 },
      });
      server.answer(json(200, reply([{ type: 'text', text: 'Hello.' }], { input_tokens: 3, output_tokens: 1 })));
      await plain.complete({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      });
      expect(server.requests.at(-1)!.body).toMatchObject({
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      });
      expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain('cache_control');
      server.answer(json(200, reply([{ type: 'text', text: 'Done.' }], { input_tokens: 3, output_tokens: 1 })));
      await client.complete({
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: null,
            reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'Plan.', signature: 'sig' } }],
            tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
        ],
      });
      const sent = server.requests.at(-1)!.body as {
        messages: Array<{ content: Array<{ type: string; cache_control?: unknown }> }>;
      };
      expect(sent.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: 'sig' });
      expect(sent.messages[2]!.content.at(-1)).toMatchObject({
        type: 'tool_result',
        cache_control: { type: 'ephemeral' },
      });
    });

    it('sends a real tau-bench conversation with reused ids made unique, and maps tool_use back', async () => {
      const record = loadConversations('tau-bench-airline').find(
        (r) => r.id === 'tau-bench/airline/gpt-4o/task-0/trial-0',
      )!;
      server.answer(
        json(
          200,
          reply([
            { type: 'thinking', thinking: 'check', signature: 's' },
            { type: 'tool_use', id: 'toolu_9', name: 'get_reservation_details', input: { reservation_id: 'ABC123' } },
          ]),
        ),
      );
      const tools = [
        { type: 'function' as const, function: { name: 'get_reservation_details', parameters: { type: 'object' } } },
      ];
      const answer = await client.complete({ messages: record.messages, tools });
      expect(answer.message.tool_calls).toEqual([
        {
          id: 'toolu_9',
          type: 'function',
          function: { name: 'get_reservation_details', arguments: '{"reservation_id":"ABC123"}' },
        },
      ]);
      expect(answer.message.reasoning).toEqual([
        { provider: 'anthropic', data: { type: 'thinking', thinking: 'check', signature: 's' } },
      ]);
      const sent = server.requests[0]!.body as {
        messages: Array<{ content: Array<{ type: string; id?: string }> }>;
        tools: unknown;
      };
      const ids = sent.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use').map((b) => b.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(sent.tools).toEqual([{ name: 'get_reservation_details', input_schema: { type: 'object' } }]);
    });

    it('retries a 529 overload and then succeeds', async () => {
      server.answer(
        json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        json(200, reply([{ type: 'text', text: 'ok' }])),
      );
      expect((await client.complete({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('ok');
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry a 400 and reports the provider reason', async () => {
      server.answer(
        json(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'messages: roles must alternate' },
        }),
      );
      const error = (await client
        .complete({ messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.retryable).toBe(false);
      expect(error.message).toMatch(/roles must alternate/);
      expect(JSON.stringify(error.toJSON())).not.toContain('sk-ant-secret');
    });

    it('rejects malformed and empty answers with LLMResponseError', async () => {
      server.answer(raw(200, 'not json'), json(200, { type: 'message' }), json(200, reply([])));
      for (const pattern of [/not valid JSON/, /no content array/, /empty/]) {
        const error = await client.complete({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LLMResponseError);
        expect((error as Error).message).toMatch(pattern);
      }
    });

    it('times out on a server that hangs', async () => {
      const once = new AnthropicClient({
        baseURL: server.url,
        apiKey: 'sk-ant-secret',
        retry: { maxRetries: 0 },
        env: {},
      });
      server.answer(hang());
      const error = await once
        .complete({ messages: [{ role: 'user', content: 'x' }], timeoutMs: 40 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect((error as LLMTimeoutError).details).toMatchObject({ timeoutMs: 40, aborted: false, attempts: 1 });
    });

    it('ends at once when the caller aborts', async () => {
      server.answer(hang());
      const controller = new AbortController();
      const pending = client.complete({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      const error = (await pending.catch((e: unknown) => e)) as LLMTimeoutError;
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.details.aborted).toBe(true);
    });

    it('reports the wait a 429 asks for, and the API version and headers it is given', async () => {
      const once = new AnthropicClient({
        baseURL: server.url,
        apiKey: 'k',
        apiVersion: '2024-01-01',
        headers: { 'x-team': 'docs' },
        retry: { maxRetries: 0 },
        env: {},
      });
      server.answer(
        json(
          429,
          {
            type: 'error',
            error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit' },
          },
          { 'retry-after': '3' },
        ),
      );
      const error = (await once
        .complete({ messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(error).toBeInstanceOf(LLMRequestError);
      expect(error.retryable).toBe(true);
      expect(error.details).toMatchObject({ status: 429, retryAfterMs: 3000, sdkError: 'RateLimitError', attempts: 1 });
      expect(error.message).toMatch(/exceeded your rate limit/);
      expect(server.requests[0]!.headers['anthropic-version']).toBe('2024-01-01');
      expect(server.requests[0]!.headers['x-team']).toBe('docs');
    });

    it(
      'sends max_tokens from defaultMaxOutputTokens when the request gives none, and the temperature it ' + 'gives',
      async () => {
        const capped = new AnthropicClient({
          baseURL: server.url,
          apiKey: 'k',
          defaultMaxOutputTokens: 256,
          model: 'claude-sonnet-4',
          env: {},
        });
        server.answer(json(200, reply([{ type: 'text', text: 'ok' }])));
        await capped.complete({ messages: [{ role: 'user', content: 'x' }], temperature: 0.2 });
        expect(server.requests[0]!.body).toMatchObject({ model: 'claude-sonnet-4', max_tokens: 256, temperature: 0.2 });
      },
    );

    it('reports a refused connection', async () => {
      const refused = new AnthropicClient({
        baseURL: await refusedUrl(),
        apiKey: 'k',
        retry: { maxRetries: 1 },
        env: {},
      });
      const error = (await refused
        .complete({ messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e)) as LLMRequestError;
      expect(error.details.networkCode).toBe('ECONNREFUSED');
      expect(error.details.attempts).toBe(2);
    });

    it('refuses a payload Anthropic would reject (a tool result without its call) before sending', async () => {
      const messages: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'orphan result' },
      ];
      await expect(client.complete({ messages })).rejects.toBeInstanceOf(ProviderPayloadError);
      expect(server.requests).toHaveLength(0);
    });

    it('reads cache writes by time to live and sends one-hour breakpoints where asked', async () => {
      const hourly = new AnthropicClient({ baseURL: server.url, apiKey: 'k', cacheTtl: '1h', env: {} });
      // The usage of a Messages API answer as recorded: writes split by TTL under cache_creation.
      const usage = {
        input_tokens: 12,
        output_tokens: 40,
        cache_read_input_tokens: 2048,
        cache_creation_input_tokens: 1500,
        cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
        service_tier: 'standard',
      };
      server.answer(json(200, reply([{ type: 'text', text: 'ok' }], usage)));
      const answer = await hourly.complete({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      });
      expect(answer.usage).toEqual({
        input_tokens: 12,
        output_tokens: 40,
        cache_read_tokens: 2048,
        cache_creation_tokens: 1500,
        cache_creation_1h_tokens: 1200,
        total_tokens: 3600,
      });
      expect(server.requests[0]!.body).toMatchObject({
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        ],
      });
    });

    it(
      "asks for cache diagnostics against the conversation's previous answer and reports the miss " + 'reason',
      async () => {
        const diagnosed = new AnthropicClient({ baseURL: server.url, apiKey: 'k', cacheDiagnostics: true, env: {} });
        server.answer(
          json(200, {
            ...reply([{ type: 'text', text: 'one' }]),
            id: 'msg_first',
            diagnostics: { cache_miss_reason: null },
          }),
        );
        const first = await diagnosed.complete({ messages: [{ role: 'user', content: 'Hi' }], cacheKey: 'support:s1' });
        expect(first.cacheMiss).toBeUndefined();
        server.answer(
          json(200, {
            ...reply([{ type: 'text', text: 'two' }]),
            id: 'msg_second',
            diagnostics: { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 4096 } },
          }),
        );
        const second = await diagnosed.complete({
          messages: [
            { role: 'system', content: 'Changed.' },
            { role: 'user', content: 'Hi' },
          ],
          cacheKey: 'support:s1',
        });
        expect(second.cacheMiss).toEqual({ reason: 'system_changed', missedTokens: 4096 });
        await diagnosed
          .complete({ messages: [{ role: 'user', content: 'Hi' }], cacheKey: 'support:s2' })
          .catch(() => undefined);
        expect(server.requests.map((r) => (r.body as { diagnostics?: unknown }).diagnostics)).toEqual([
          { previous_message_id: null },
          { previous_message_id: 'msg_first' },
          { previous_message_id: null },
        ]);
        // Without the option no diagnostics are asked for.
        await client
          .complete({ messages: [{ role: 'user', content: 'Hi' }], cacheKey: 'support:s1' })
          .catch(() => undefined);
        expect(server.requests.at(-1)!.body).not.toHaveProperty('diagnostics');
      },
    );

    it(
      "sends a helper request as the last turn's request continued: its bytes up to the end of the messages, then " +
        'the instruction',
      async () => {
        const tools = [
          {
            type: 'function' as const,
            function: {
              name: 'get_reservation',
              description: 'Look up a booking',
              parameters: { type: 'object', properties: { id: { type: 'string' } } },
            },
          },
        ];
        const turn: ChatMessage[] = [
          { role: 'system', content: 'You are a travel agent.' },
          { role: 'user', content: 'Where is booking 8JX2?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_reservation', arguments: '{"id":"8JX2"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '{"from":"SFO","to":"JFK"}' },
        ];
        server.answer(json(200, reply([{ type: 'text', text: 'SFO to JFK.' }])));
        await client.complete({ messages: turn, tools, cacheKey: 'support:s1', maxOutputTokens: 1024 });
        const instruction: ChatMessage = {
          role: 'user',
          content: 'Summarize the conversation so far inside <summary></summary> tags.',
        };
        const standalone: ChatMessage[] = [
          { role: 'system', content: 'You write summaries.' },
          { role: 'user', content: 'Summarize: ...' },
        ];
        await client.complete({
          messages: standalone,
          continuation: [instruction],
          cacheKey: 'support:s1',
          maxOutputTokens: 300,
          temperature: 0,
        });
        await client.complete({
          messages: standalone,
          continuation: [instruction],
          cacheKey: 'support:s1',
          maxOutputTokens: 300,
        });

        const [sentTurn, helper, again] = server.requests;
        const end = sentTurn!.text.indexOf('],"max_tokens":');
        const prefix = sentTurn!.text.slice(0, end);
        // The cut is exactly the end of the turn's messages, which come after its model, system prompt and tools.
        expect(JSON.parse(`${prefix}]}`)).toEqual({
          model: 'claude-haiku-4-5',
          system: (sentTurn!.body as { system: unknown }).system,
          tools: (sentTurn!.body as { tools: unknown }).tools,
          messages: (sentTurn!.body as { messages: unknown }).messages,
        });
        expect(helper!.text.startsWith(`${prefix},`)).toBe(true);
        expect(helper!.body).toMatchObject({ max_tokens: 300, temperature: 0 });
        expect((helper!.body as { messages: unknown[] }).messages.at(-1)).toEqual({
          role: 'user',
          content: [{ type: 'text', text: instruction.content }],
        });
        // A helper request is not remembered as a turn: the next one continues the turn again.
        expect(again!.text.startsWith(`${prefix},`)).toBe(true);
      },
    );

    it(
      'sends a helper request on its own when no turn went out under its key or it asks for another ' + 'model',
      async () => {
        const instruction: ChatMessage = { role: 'user', content: 'Summarize.' };
        const standalone: ChatMessage[] = [
          { role: 'system', content: 'You write summaries.' },
          { role: 'user', content: 'Summarize: the user asked about 8JX2.' },
        ];
        server.answer(json(200, reply([{ type: 'text', text: 'ok' }])));
        await client.complete({ messages: standalone, continuation: [instruction], cacheKey: 'support:none' });
        await client.complete({ messages: [{ role: 'user', content: 'Hi' }], cacheKey: 'support:s1' });
        await client.complete({
          messages: standalone,
          continuation: [instruction],
          cacheKey: 'support:s1',
          model: 'claude-sonnet-4',
        });
        for (const index of [0, 2]) {
          expect(server.requests[index]!.body).toMatchObject({
            system: [{ type: 'text', text: 'You write summaries.' }],
            messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarize: the user asked about 8JX2.' }] }],
          });
        }
      },
    );
  });

  describe('compaction requests', () => {
    const block = {
      type: 'compaction',
      content: 'The user asked about booking 8JX2; it is confirmed for 2026-12-03.',
      encrypted_content: null,
      signature: 'sig-Zm9v',
    };
    const compacted = (content: unknown[]) => ({
      ...reply(content, { input_tokens: 900, output_tokens: 40, cache_read_input_tokens: 800 }),
      stop_reason: 'compaction',
    });
    const conversation: ChatMessage[] = [
      { role: 'system', content: 'You are a travel agent.' },
      { role: 'user', content: 'Where is booking 8JX2?' },
      { role: 'assistant', content: 'It is confirmed for 2026-12-03.' },
    ];

    it(
      'sends the request as a turn with the compaction parameter on the beta endpoint, and answers with the signed ' +
        'block kept whole',
      async () => {
        expect(client.providerCompaction).toBe('anthropic');
        server.answer(json(200, compacted([block])));
        const answer = await client.complete({
          messages: conversation,
          tools: [{ type: 'function', function: { name: 'find_booking', parameters: { type: 'object' } } }],
          providerCompaction: { instructions: 'Keep booking codes.' },
          cacheKey: 'support:s1',
          maxOutputTokens: 2000,
        });
        expect(answer.message).toEqual({
          role: 'assistant',
          content: null,
          reasoning: [{ provider: 'anthropic', data: block }],
        });
        expect(answer.text).toBe('');
        expect(answer.finishReason).toBe('compaction');
        expect(answer.usage).toMatchObject({ input_tokens: 900, cache_read_tokens: 800 });
        const [request] = server.requests;
        expect(request!.url).toBe('/v1/messages');
        expect(request!.headers['anthropic-beta']).toBe('compact-2026-09-04');
        expect(request!.body).toMatchObject({
          model: 'claude-haiku-4-5',
          system: [{ type: 'text', text: 'You are a travel agent.' }],
          tools: [{ name: 'find_booking' }],
          compaction: { type: 'summarize', instructions: 'Keep booking codes.' },
          max_tokens: 2000,
        });
      },
    );

    it(
      'sends the block back first, without a note before it, and never continues a compaction request as a ' + 'turn',
      async () => {
        server.answer(
          json(200, reply([{ type: 'text', text: 'Noted.' }])),
          json(200, compacted([block])),
          json(200, reply([{ type: 'text', text: 'Seat 14C.' }])),
        );
        await client.complete({ messages: [{ role: 'user', content: 'Hi' }], cacheKey: 'support:s1' });
        const answer = await client.complete({
          messages: conversation,
          providerCompaction: {},
          cacheKey: 'support:s1',
        });
        const next: ChatMessage[] = [
          { role: 'system', content: 'You are a travel agent.' },
          answer.message,
          { role: 'user', content: 'Which seat?' },
        ];
        await client.complete({
          messages: next,
          cacheKey: 'support:s1',
          continuation: [{ role: 'user', content: 'Summarize.' }],
        });
        expect(server.requests[1]!.body).toMatchObject({ compaction: { type: 'summarize' } });
        expect(server.requests[1]!.body).not.toHaveProperty('compaction.instructions');
        // The helper continues the turn sent before the compaction, not the compaction request.
        expect((server.requests[2]!.body as { messages: unknown[] }).messages[0]).toEqual({
          role: 'user',
          content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }],
        });
        server.answer(json(200, reply([{ type: 'text', text: 'Seat 14C.' }])));
        await client.complete({ messages: next, cacheKey: 'support:s2' });
        const sent = (server.requests[3]!.body as { messages: Array<{ role: string; content: unknown[] }> }).messages;
        expect(sent[0]).toEqual({ role: 'assistant', content: [block] });
        expect(JSON.stringify(sent[0]!.content[0])).toBe(JSON.stringify(block));
      },
    );

    it(
      'rejects an answer without a compaction block with a summary (a text answer, a failed compaction) and passes ' +
        'HTTP errors on',
      async () => {
        server.answer(
          json(200, reply([{ type: 'text', text: 'Sure, here is a summary.' }])),
          json(200, compacted([{ ...block, content: null }])),
        );
        await expect(client.complete({ messages: conversation, providerCompaction: {} })).rejects.toBeInstanceOf(
          LLMResponseError,
        );
        await expect(client.complete({ messages: conversation, providerCompaction: {} })).rejects.toBeInstanceOf(
          LLMResponseError,
        );
        const noRetry = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {}, retry: { maxRetries: 0 } });
        server.answer(
          json(400, {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'compaction_nothing_to_summarize' },
          }),
        );
        await expect(noRetry.complete({ messages: conversation, providerCompaction: {} })).rejects.toBeInstanceOf(
          LLMRequestError,
        );
      },
    );
  });
});
