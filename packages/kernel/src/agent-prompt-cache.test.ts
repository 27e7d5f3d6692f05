import 'reflect-metadata';

import * as path from 'node:path';

import { type ContextRuntime, conversationCacheKey, createContextRuntime } from '@ctxkit/core';

import { json, LoopbackProviderServer } from './__fixtures__/loopback-provider-server';
import { createAgent } from './create-agent';
import { AnthropicClient } from './llm/anthropic-client';

const pluginsDir = path.join(__dirname, '..', '..', '..', 'plugins');

/** A Messages API answer as recorded, with cache writes split by time to live and a cache diagnosis. */
const answer = (id: string, text: string, missReason: unknown) => ({
  id,
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5-20251001',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 20,
    output_tokens: 8,
    cache_read_input_tokens: 1800,
    cache_creation_input_tokens: 600,
    cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 400 },
  },
  diagnostics: { cache_miss_reason: missReason },
});

describe('the agent and the provider prompt cache', () => {
  let runtime: ContextRuntime;
  let server: LoopbackProviderServer;

  beforeEach(async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'sliding-window')],
      discoverInstalled: false,
    });
    server = await LoopbackProviderServer.start();
  });
  afterEach(async () => server.close());

  it(
    'records cache reads, writes by time to live and the miss reason of each call, in the llm-usage event and the ' +
      'run usage',
    async () => {
      const handle = await runtime.loadAgent({
        id: 'support',
        model: 'claude-haiku-4-5',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-sliding-window-strategy',
          config: { maxContextTokens: 8192 },
        },
      });
      const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', cacheDiagnostics: true, env: {} });
      const agent = createAgent(handle, { llm, systemPrompt: 'You are a travel agent.' });
      const usages: unknown[] = [];
      handle.events.on('llm-usage', (event) => usages.push(event));
      server.answer(json(200, answer('msg_1', 'Hello.', null)));
      await agent.run('Hi');
      server.answer(
        json(200, answer('msg_2', 'Booked.', { type: 'messages_changed', cache_missed_input_tokens: 1500 })),
      );
      const second = await agent.run([...agent.history(), { role: 'user', content: 'Book it.' }]);

      expect(usages).toHaveLength(2);
      expect(usages[0]).not.toHaveProperty('cacheMiss');
      expect(usages[1]).toMatchObject({
        agentId: 'support',
        usage: { cache_read_tokens: 1800, cache_creation_tokens: 600, cache_creation_1h_tokens: 400 },
        cacheMiss: { reason: 'messages_changed', missedTokens: 1500 },
      });
      expect(second.usage).toMatchObject({
        cache_read_tokens: 1800,
        cache_creation_tokens: 600,
        cache_creation_1h_tokens: 400,
      });
      // The second turn asked for the diagnosis against the first turn's answer.
      expect(server.requests[1]!.body).toMatchObject({ diagnostics: { previous_message_id: 'msg_1' } });
    },
  );

  it("sends a helper request through the agent's client as the last turn's request continued", async () => {
    const handle = await runtime.loadAgent({
      id: 'support',
      model: 'claude-haiku-4-5',
      contextStrategy: { type: 'plugin', pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 8192 } },
    });
    const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {} });
    const agent = createAgent(handle, { llm, systemPrompt: 'You are a travel agent.' });
    server.answer(json(200, answer('msg_1', 'Hello.', null)));
    await agent.run('Where is booking 8JX2?');
    // What a strategy does with `context.llm`: its own complete request, and the instruction to continue the turn with.
    await handle.llm!.complete({
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'system', content: 'You write summaries.' },
        { role: 'user', content: 'Summarize: the user asked about 8JX2.' },
      ],
      continuation: [{ role: 'user', content: 'Summarize the conversation so far inside <summary></summary> tags.' }],
      cacheKey: conversationCacheKey(handle.id, 'default'),
      maxOutputTokens: 256,
    });

    const [turn, helper] = server.requests;
    const prefix = turn!.text.slice(0, turn!.text.indexOf('],"max_tokens":'));
    expect(JSON.parse(`${prefix}]}`)).toMatchObject({
      model: 'claude-haiku-4-5',
      system: [{ type: 'text', text: 'You are a travel agent.' }],
    });
    expect(helper!.text.startsWith(`${prefix},`)).toBe(true);
  });

  it("sends a strategy's compaction through the agent's client as the last turn's request continued", async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'tool-output-cache')],
      discoverInstalled: false,
    });
    const handle = await runtime.loadAgent({
      id: 'coder',
      model: 'claude-haiku-4-5',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 8000 },
      },
    });
    const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {} });
    const agent = createAgent(handle, { llm, systemPrompt: 'You fix builds.' });
    // The second answer reports a prompt near the window, so the strategy compacts the first turn after that call.
    const nearlyFull = {
      ...answer('msg_2', 'The error is in src/main.c.', null),
      usage: { input_tokens: 7600, output_tokens: 8 },
    };
    const summary = answer(
      'msg_3',
      '<retain>src/main.c</retain>\n<summary>The user asked to fix the build; the logs point at src/main.c.</summary>',
      null,
    );
    server.answer(json(200, answer('msg_1', 'I read the logs.', null)));
    await agent.run(`Fix the build. ${'The log says: undefined reference in src/main.c. '.repeat(40)}`);
    server.answer(json(200, nearlyFull), json(200, summary));
    await agent.run([...agent.history(), { role: 'user', content: 'Where is the error?' }]);

    const bodies = server.requests.map((request) => request.text);
    const compaction = bodies.findIndex((text) => text.includes('about to be compacted'));
    expect(compaction).toBeGreaterThan(0);
    const turn = bodies[compaction - 1]!;
    const prefix = turn.slice(0, turn.indexOf('],"max_tokens":'));
    expect(prefix.length).toBeGreaterThan(100);
    expect(bodies[compaction]!.startsWith(`${prefix},`)).toBe(true);
  });

  it(
    "sends a summarization fold through the agent's client as the last turn's request continued, naming the turns " +
      'instead of restating them',
    async () => {
      runtime = await createContextRuntime({
        pluginDirs: [path.join(pluginsDir, 'dynamic-summarization')],
        discoverInstalled: false,
      });
      const handle = await runtime.loadAgent({
        id: 'support',
        model: 'claude-haiku-4-5',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-summarization-strategy',
          config: { maxContextTokens: 8192, threshold: 1, batchTurns: 1 },
        },
      });
      const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {} });
      const agent = createAgent(handle, { llm, systemPrompt: 'You are a travel agent.' });
      const folds: unknown[] = [];
      handle.events.on('summary-end', (event) => folds.push(event));
      server.answer(json(200, answer('msg_1', 'I found booking 8JX2 for Lisbon.', null)));
      await agent.run(
        `Where is booking 8JX2? I fly to Lisbon on ` +
          `2026-12-03. ${'I need a quiet seat because I work on the plane. '.repeat(8)}`,
      );
      server.answer(
        json(200, answer('msg_2', 'Seat 14C is free.', null)),
        json(
          200,
          answer(
            'msg_3',
            '<summary>The user asked about booking 8JX2, a flight to Lisbon on 2026-12-03; it was found.</summary>',
            null,
          ),
        ),
      );
      await agent.run([...agent.history(), { role: 'user', content: 'Is there a window seat?' }]);
      // Two turns over a threshold of one: the oldest is folded in the background after the second turn.
      for (let waited = 0; folds.length === 0 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));

      const bodies = server.requests.map((request) => request.text);
      expect(bodies).toHaveLength(3);
      const turn = bodies[1]!;
      const prefix = turn.slice(0, turn.indexOf('],"max_tokens":'));
      expect(prefix).toContain('Is there a window seat?');
      expect(bodies[2]!.startsWith(`${prefix},`)).toBe(true);
      // The appended instruction names the folded messages rather than restating them as a transcript.
      const appended = (
        server.requests[2]!.body as { messages: Array<{ content: Array<{ text: string }> }> }
      ).messages.at(-1)!.content[0]!.text;
      expect(appended).toContain('<summary_instructions>');
      expect(appended).toContain('the user message that begins "Where is booking 8JX2?');
      expect(appended).not.toContain('<transcript');
      expect(server.requests[2]!.body).toMatchObject({ max_tokens: expect.any(Number) });
      // The summary passed its checks (8JX2 and the date are in it) and was committed.
      expect(folds).toEqual([expect.objectContaining({ turns: 1, version: 1 })]);
    },
  );

  it("sends an entity extraction through the agent's client as the last turn's request continued", async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'entity-extraction')],
      discoverInstalled: false,
    });
    const stateSchema = {
      type: 'object',
      properties: { booking: { type: 'string' }, seat: { type: 'string' } },
      additionalProperties: false,
    };
    const handle = await runtime.loadAgent({
      id: 'support',
      model: 'claude-haiku-4-5',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-entity-extraction-strategy',
        config: { maxContextTokens: 8192, stateSchema },
      },
    });
    const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {} });
    const agent = createAgent(handle, { llm, systemPrompt: 'You are a travel agent.' });
    // Each turn: the extraction of the new user message, then the turn itself.
    server.answer(
      json(200, answer('msg_1', '{"booking":"8JX2"}', null)),
      json(200, answer('msg_2', 'I found booking 8JX2.', null)),
    );
    await agent.run('Where is booking 8JX2?');
    server.answer(
      json(200, answer('msg_3', '{"seat":"14C"}', null)),
      json(200, answer('msg_4', 'Seat 14C is yours.', null)),
    );
    await agent.run([...agent.history(), { role: 'user', content: 'I want seat 14C.' }]);

    const bodies = server.requests.map((request) => request.text);
    expect(bodies).toHaveLength(4);
    // The first extraction has no turn to continue: it stands alone, with its own system prompt.
    expect(server.requests[0]!.body).toMatchObject({
      system: [{ text: expect.stringContaining('You keep the structured state') }],
    });
    const turn = bodies[1]!;
    const prefix = turn.slice(0, turn.indexOf('],"max_tokens":'));
    expect(prefix).toContain('Where is booking 8JX2?');
    expect(bodies[2]!.startsWith(`${prefix},`)).toBe(true);
    const appended = (
      server.requests[2]!.body as { messages: Array<{ content: Array<{ text: string }> }> }
    ).messages.at(-1)!.content[0]!.text;
    expect(appended).toContain('<new_user_message index="2">\nI want seat 14C.\n</new_user_message>');
    // Both extractions were applied: the second turn's request carries the state.
    expect(bodies[3]).toContain('14C');
    expect(bodies[3]).toContain('8JX2');
  });
});
