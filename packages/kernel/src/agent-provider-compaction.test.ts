import 'reflect-metadata';

import * as path from 'node:path';

import { type ContextRuntime, createContextRuntime } from '@ctxkit/core';

import { hang, json, LoopbackProviderServer, type ReceivedRequest } from './__fixtures__/loopback-provider-server';
import { createAgent } from './create-agent';
import { AnthropicClient } from './llm/anthropic-client';
import { OpenAIResponsesClient } from './llm/openai-responses-client';

const pluginsDir = path.join(__dirname, '..', '..', '..', 'plugins');

/** A Messages API answer. */
const answer = (
  id: string,
  content: unknown[],
  usage: Record<string, unknown> = { input_tokens: 900, output_tokens: 12 },
  stop = 'end_turn',
) => ({
  id,
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5-20251001',
  content,
  stop_reason: stop,
  usage,
});
const text = (id: string, words: string, usage?: Record<string, unknown>) =>
  answer(id, [{ type: 'text', text: words }], usage);
/** The signed block Anthropic's compaction request answers with, alone. */
const block = {
  type: 'compaction',
  content: 'The user asked to fix the build; the logs point at an undefined reference in src/main.c.',
  encrypted_content: null,
  signature: 'c2lnbmVkLXN1bW1hcnk=',
};
const compacted = answer(
  'msg_c',
  [block],
  { input_tokens: 300, output_tokens: 40, cache_read_input_tokens: 2200 },
  'compaction',
);
const LOG = `Fix the build. ${'The log says: undefined reference in src/main.c. '.repeat(40)}`;

const isCompaction = (request: ReceivedRequest) =>
  typeof request.body === 'object' && request.body !== null && 'compaction' in request.body;
/** True when the history the agent keeps holds the summary ctxkit's own fallback wrote. */
const keepsFallbackSummary = (agent: { history(): ReadonlyArray<{ role: string; content: unknown }> }) =>
  agent
    .history()
    .some((message) => message.role === 'user' && String(message.content).includes('logs point at src/main.c'));
const bodyOf = (request: ReceivedRequest) =>
  request.body as {
    system?: unknown;
    tools?: unknown;
    messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  };

describe('provider-native compaction through the agent (Anthropic, loopback server)', () => {
  let runtime: ContextRuntime;
  let server: LoopbackProviderServer;

  beforeEach(async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'tool-output-cache')],
      discoverInstalled: false,
    });
    server = await LoopbackProviderServer.start();
  });
  afterEach(async () => server.close());

  async function coder(compaction: Record<string, unknown>, manifest: Record<string, unknown> = {}) {
    const handle = await runtime.loadAgent({
      id: 'coder',
      model: 'claude-haiku-4-5',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 8000, compaction },
      },
      ...manifest,
    });
    const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {}, retry: { maxRetries: 0 } });
    const agent = createAgent(handle, { llm, systemPrompt: 'You fix builds.' });
    const events: Array<{ name: string; payload: Record<string, unknown> }> = [];
    for (const name of ['compaction-start', 'compaction-end', 'compaction-error', 'strategy-warning'] as const)
      handle.events.on(name, (payload) =>
        events.push({ name, payload: payload as unknown as Record<string, unknown> }),
      );
    return { handle, agent, events };
  }

  /** Two turns; the second answer reports a prompt near the window, so the first turn is compacted after that call. */
  async function twoTurns(
    agent: Awaited<ReturnType<typeof coder>>['agent'],
    second: Parameters<LoopbackProviderServer['answer']>,
  ) {
    server.answer(json(200, text('msg_1', 'I read the logs.')));
    await agent.run(LOG);
    server.answer(...second);
    await agent.run([...agent.history(), { role: 'user', content: 'Where is the error?' }]);
  }

  it(
    'asks the provider to compact, sends its signed block first and unchanged afterwards, records the epoch, and ' +
      'undo restores the turns',
    async () => {
      const { agent, events } = await coder({ engine: 'provider' });
      const nearlyFull = text('msg_2', 'The error is in src/main.c.', { input_tokens: 7600, output_tokens: 8 });
      await twoTurns(agent, [json(200, nearlyFull), json(200, compacted)]);

      const requests = server.requests;
      const compaction = requests.findIndex(isCompaction);
      expect(compaction).toBe(2);
      const turn = bodyOf(requests[1]!);
      const asked = bodyOf(requests[compaction]!);
      expect(requests[compaction]!.headers['anthropic-beta']).toBe('compact-2026-09-04');
      expect(requests[compaction]!.body).toMatchObject({ compaction: { type: 'summarize' } });
      // The request is the turn's start, byte for byte: the same model, system prompt and tools, then the turns it
      // replaces.
      const upToMessages = (body: string) => body.slice(0, body.indexOf('"messages":[') + '"messages":['.length);
      expect(upToMessages(requests[compaction]!.text)).toBe(upToMessages(requests[1]!.text));
      expect(upToMessages(requests[1]!.text)).toContain('"tools":[');
      expect(JSON.stringify(asked.messages[0])).toBe(JSON.stringify(turn.messages[0]));
      expect(asked.system).toEqual(turn.system);
      expect(
        asked.messages.some((message) => message.content.some((part) => part.text === 'Where is the error?')),
      ).toBe(false);

      // The history now opens with the block; the next turn sends it first, byte for byte.
      expect(agent.history()[0]).toEqual({
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'anthropic', data: block }],
      });
      expect(events.map((event) => event.name)).toEqual(expect.arrayContaining(['compaction-start', 'compaction-end']));
      expect(events.find((event) => event.name === 'compaction-end')!.payload).toMatchObject({ trigger: 'auto' });
      server.answer(json(200, text('msg_3', 'Fixed.')));
      await agent.run([...agent.history(), { role: 'user', content: 'Fix it.' }]);
      const next = requests[requests.length - 1]!;
      const first = bodyOf(next).messages[0]!;
      expect(first.role).toBe('assistant');
      expect(JSON.stringify(first.content[0])).toBe(JSON.stringify(block));
      expect(next.text).not.toContain('The log says: undefined reference in src/main.c. The log says');

      // The compaction is an epoch; undoing it puts the replaced turns back.
      const epochs = await agent.epochs();
      const epoch = epochs.find((candidate) => candidate.kind === 'compaction');
      expect(epoch).toBeDefined();
      const undone = await agent.undo(epoch!.id);
      expect(undone.history?.[0]).toEqual({ role: 'user', content: LOG });
      expect(agent.history().some((message) => message.role === 'assistant' && message.reasoning !== undefined)).toBe(
        false,
      );
    },
  );

  it('keeps the pinned block verbatim, right after the compaction block that must open the conversation', async () => {
    const { agent } = await coder({ engine: 'provider' }, { pins: [{ text: 'Never delete files.', label: 'rule' }] });
    const nearlyFull = text('msg_2', 'The error is in src/main.c.', { input_tokens: 7600, output_tokens: 8 });
    await twoTurns(agent, [json(200, nearlyFull), json(200, compacted)]);
    server.answer(json(200, text('msg_3', 'Fixed.')));
    await agent.run([...agent.history(), { role: 'user', content: 'Fix it.' }]);
    const messages = bodyOf(server.requests.at(-1)!).messages;
    expect(JSON.stringify(messages[0]!.content)).toBe(JSON.stringify([block]));
    expect(messages[1]!.role).toBe('user');
    expect(String(messages[1]!.content[0]!.text)).toContain('Never delete files.');
    // Before the compaction the pinned block opened the conversation, as usual.
    expect(String(bodyOf(server.requests[0]!).messages[0]!.content[0]!.text)).toContain('Never delete files.');
  });

  it(
    "falls back to ctxkit's summary call in the same attempt when the provider's compaction fails, without losing " +
      'the turns',
    async () => {
      const { agent, events, handle } = await coder({ engine: 'provider' });
      const nearlyFull = text('msg_2', 'The error is in src/main.c.', { input_tokens: 7600, output_tokens: 8 });
      const summary = text(
        'msg_s',
        '<retain>src/main.c</retain>\n<summary>The user asked to fix the build; the logs point at ' +
          'src/main.c.</summary>',
      );
      await twoTurns(agent, [
        json(200, nearlyFull),
        json(500, { type: 'error', error: { type: 'api_error', message: 'compaction unavailable' } }),
        json(200, summary),
      ]);

      const requests = server.requests;
      expect(requests).toHaveLength(4);
      expect(isCompaction(requests[2]!)).toBe(true);
      expect(isCompaction(requests[3]!)).toBe(false);
      expect(requests[3]!.text).toContain('about to be compacted');
      const warning = events.find(
        (event) => event.name === 'strategy-warning' && String(event.payload.message).includes("provider's compaction"),
      );
      expect(warning).toBeDefined();
      expect(events.map((event) => event.name)).toContain('compaction-end');
      // The summary ctxkit's call wrote replaced the turn; nothing else was lost.
      const history = agent.history();
      expect(
        history.some(
          (message) => message.role === 'user' && String(message.content).includes('logs point at src/main.c'),
        ),
      ).toBe(true);
      expect(history.at(-1)).toMatchObject({ role: 'assistant', content: 'The error is in src/main.c.' });
      // The next payload reports who wrote the compaction and why the provider did not.
      const composed: Array<Record<string, unknown>> = [];
      handle.events.on('payload-composed', (event) =>
        composed.push(event.stats.extra?.compaction as Record<string, unknown>),
      );
      server.answer(json(200, text('msg_3', 'Fixed.')));
      await agent.run([...history, { role: 'user', content: 'Go on.' }]);
      expect(composed.at(-1)).toMatchObject({
        engine: 'provider',
        lastEngine: 'ctxkit',
        providerFallback: { code: 'CTXKIT_LLM_REQUEST_FAILED' },
      });
    },
  );

  it('falls back on a malformed answer (a text answer without a compaction block)', async () => {
    const { agent } = await coder({ engine: 'provider' });
    const nearlyFull = text('msg_2', 'The error is in src/main.c.', { input_tokens: 7600, output_tokens: 8 });
    const summary = text('msg_s', '<summary>The user asked to fix the build; the logs point at src/main.c.</summary>');
    await twoTurns(agent, [
      json(200, nearlyFull),
      json(200, text('msg_x', 'Here is a summary of the conversation.')),
      json(200, summary),
    ]);
    expect(server.requests.filter(isCompaction)).toHaveLength(1);
    expect(keepsFallbackSummary(agent)).toBe(true);
  });

  it(
    "falls back when the provider's compaction passes its deadline, and waits for the failed request only " + 'once',
    async () => {
      const { agent, events } = await coder({ engine: 'provider', timeoutMs: 400 });
      const nearlyFull = text('msg_2', 'The error is in src/main.c.', { input_tokens: 7600, output_tokens: 8 });
      const summary = text(
        'msg_s',
        '<summary>The user asked to fix the build; the logs point at src/main.c.</summary>',
      );
      const started = performance.now();
      await twoTurns(agent, [json(200, nearlyFull), hang(), json(200, summary)]);
      expect(performance.now() - started).toBeLessThan(4000);
      expect(server.requests.filter(isCompaction)).toHaveLength(1);
      expect(events.find((event) => event.name === 'strategy-warning')?.payload.code).toBe('CTXKIT_LLM_TIMEOUT');
      expect(keepsFallbackSummary(agent)).toBe(true);
    },
  );
});

describe('provider-native compaction through the agent (OpenAI Responses, loopback server)', () => {
  let runtime: ContextRuntime;
  let server: LoopbackProviderServer;

  beforeEach(async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'tool-output-cache')],
      discoverInstalled: false,
    });
    server = await LoopbackProviderServer.start();
  });
  afterEach(async () => server.close());

  const said = (words: string, inputTokens = 900) => ({
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    model: 'gpt-5.4-mini',
    output: [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: words, annotations: [] }],
      },
    ],
    usage: { input_tokens: inputTokens, output_tokens: 10, total_tokens: inputTokens + 10 },
  });
  const item = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAABlbmNyeXB0ZWQtc3VtbWFyeQ==' };
  const compactedAnswer = { ...said('', 300), output: [item] };
  const isTrigger = (request: ReceivedRequest) =>
    JSON.stringify((request.body as { input?: unknown[] }).input?.at(-1)) ===
    JSON.stringify({ type: 'compaction_trigger' });

  async function coder() {
    const handle = await runtime.loadAgent({
      id: 'coder',
      model: 'gpt-5.4-mini',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 8000, compaction: { engine: 'auto' } },
      },
    });
    const llm = new OpenAIResponsesClient({
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      env: {},
      retry: { maxRetries: 0 },
    });
    return createAgent(handle, { llm, systemPrompt: 'You fix builds.' });
  }

  it(
    'triggers the compaction in a request, sends the encrypted item first and unchanged afterwards, and undo ' +
      'restores the turns',
    async () => {
      const agent = await coder();
      server.answer(json(200, said('I read the logs.')));
      await agent.run(LOG);
      server.answer(json(200, said('The error is in src/main.c.', 7600)), json(200, compactedAnswer));
      await agent.run([...agent.history(), { role: 'user', content: 'Where is the error?' }]);

      const trigger = server.requests.findIndex(isTrigger);
      expect(trigger).toBe(2);
      const asked = server.requests[trigger]!.body as { input: unknown[]; context_management: unknown; tools: unknown };
      expect(asked.context_management).toEqual([{ type: 'compaction' }]);
      expect(asked.tools).toEqual((server.requests[1]!.body as { tools: unknown }).tools);
      expect(asked.input[0]).toEqual({ type: 'message', role: 'system', content: 'You fix builds.' });
      expect(agent.history()[0]).toEqual({
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'openai', data: item }],
      });

      server.answer(json(200, said('Fixed.')));
      await agent.run([...agent.history(), { role: 'user', content: 'Fix it.' }]);
      const input = (server.requests.at(-1)!.body as { input: unknown[] }).input;
      expect(JSON.stringify(input[1])).toBe(JSON.stringify(item));
      expect(JSON.stringify(input)).not.toContain('The log says');

      const epoch = (await agent.epochs()).find((candidate) => candidate.kind === 'compaction');
      const undone = await agent.undo(epoch!.id);
      expect(undone.history?.[0]).toEqual({ role: 'user', content: LOG });
    },
  );

  it("falls back to ctxkit's summary call when the compaction request fails", async () => {
    const agent = await coder();
    server.answer(json(200, said('I read the logs.')));
    await agent.run(LOG);
    server.answer(
      json(200, said('The error is in src/main.c.', 7600)),
      json(503, { error: { message: 'overloaded', type: 'server_error' } }),
      json(200, said('<summary>The user asked to fix the build; the logs point at src/main.c.</summary>')),
    );
    await agent.run([...agent.history(), { role: 'user', content: 'Where is the error?' }]);
    expect(server.requests.filter(isTrigger)).toHaveLength(1);
    expect(server.requests[3]!.text).toContain('about to be compacted');
    expect(keepsFallbackSummary(agent)).toBe(true);
  });
});

describe('provider-native compaction as the summarization engine (Anthropic, loopback server)', () => {
  let runtime: ContextRuntime;
  let server: LoopbackProviderServer;

  beforeEach(async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'dynamic-summarization')],
      discoverInstalled: false,
    });
    server = await LoopbackProviderServer.start();
  });
  afterEach(async () => server.close());

  const FIRST =
    `Where is booking 8JX2? I fly to Lisbon on ` +
    `2026-12-03. ${'I need a quiet seat because I work on the plane. '.repeat(8)}`;

  async function traveller(id = 'support') {
    const handle = await runtime.loadAgent({
      id,
      model: 'claude-haiku-4-5',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-summarization-strategy',
        config: { maxContextTokens: 8192, threshold: 1, batchTurns: 1, engine: 'provider' },
      },
    });
    const llm = new AnthropicClient({ baseURL: server.url, apiKey: 'k', env: {}, retry: { maxRetries: 0 } });
    const agent = createAgent(handle, { llm, systemPrompt: 'You are a travel agent.' });
    const folds: Array<Record<string, unknown>> = [];
    handle.events.on('summary-end', (event) => folds.push(event as unknown as Record<string, unknown>));
    const engines: unknown[] = [];
    handle.events.on('payload-composed', (event) => engines.push(event.stats.extra?.summaryEngine));
    return { handle, agent, folds, engines };
  }

  /** Two turns over a threshold of one: the first is folded in the background after the second. */
  async function twoTurns(
    t: Awaited<ReturnType<typeof traveller>>,
    fold: Parameters<LoopbackProviderServer['answer']>,
  ) {
    server.answer(json(200, text('msg_1', 'I found booking 8JX2 for Lisbon.')));
    await t.agent.run(FIRST);
    server.answer(json(200, text('msg_2', 'Seat 14C is free.')), ...fold);
    await t.agent.run([...t.agent.history(), { role: 'user', content: 'Is there a window seat?' }]);
    for (let waited = 0; t.folds.length === 0 && waited < 5000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it(
    "folds with the provider's readable compaction: the turns as the last request sent them, the summary checked " +
      'and committed',
    async () => {
      const t = await traveller();
      const summary = {
        ...block,
        content: 'The user asked about booking 8JX2, a flight to Lisbon on 2026-12-03, and wants a quiet seat.',
      };
      await twoTurns(t, [
        json(200, answer('msg_c', [summary], { input_tokens: 200, output_tokens: 30 }, 'compaction')),
      ]);

      expect(server.requests).toHaveLength(3);
      const [, turn, fold] = server.requests;
      expect(fold!.body).toMatchObject({
        compaction: { type: 'summarize', instructions: expect.stringContaining('fold it in') },
      });
      expect(bodyOf(fold!).system).toEqual(bodyOf(turn!).system);
      // The turn to fold, as the turn request sent it; not the newer one.
      expect(bodyOf(fold!).messages[0]!.content[0]!.text).toBe(FIRST);
      expect(fold!.text).not.toContain('Is there a window seat?');
      expect(t.folds).toEqual([expect.objectContaining({ turns: 1, version: 1 })]);
      const covered: unknown[] = [];
      t.handle.events.on('payload-composed', (event) => covered.push(event.stats.extra?.coveredMessages));
      server.answer(json(200, text('msg_3', 'Done.')));
      await t.agent.run([...t.agent.history(), { role: 'user', content: 'Book 14C.' }]);
      expect(t.engines.at(-1)).toEqual({ engine: 'provider', lastEngine: 'provider', providerFallback: null });
      expect(covered).toEqual([2]);
      // The fold is an epoch like any other, and undo takes it back.
      const epoch = (await t.agent.epochs()).find((candidate) => candidate.kind === 'fold');
      expect(epoch).toBeDefined();
      await t.agent.undo(epoch!.id);
      server.answer(json(200, text('msg_4', 'Booked.')));
      await t.agent.run([...t.agent.history(), { role: 'user', content: 'Thanks.' }]);
      // The summary is gone: the next payload covers nothing with it.
      expect(covered[1]).toBe(0);
    },
  );

  it(
    'falls back to the summary request in the same fold when the compaction fails or its summary misses what it ' +
      'must keep',
    async () => {
      for (const [index, failure] of [
        json(500, { type: 'error', error: { type: 'api_error', message: 'compaction unavailable' } }),
        json(200, answer('msg_c', [{ ...block, content: 'The user asked about a flight.' }], undefined, 'compaction')),
      ].entries()) {
        // A server of its own: the previous agent's next fold may still be running against the last one.
        if (index > 0) {
          await server.close();
          server = await LoopbackProviderServer.start();
        }
        const t = await traveller(`support-${index}`);
        const written = text(
          'msg_s',
          '<summary>The user asked about booking 8JX2, a flight to Lisbon on 2026-12-03.</summary>',
        );
        await twoTurns(t, [failure, json(200, written)]);
        expect(server.requests).toHaveLength(4);
        expect(server.requests[2]!.body).toHaveProperty('compaction');
        expect(server.requests[3]!.body).not.toHaveProperty('compaction');
        expect(server.requests[3]!.text).toContain('<summary_instructions>');
        expect(t.folds).toEqual([expect.objectContaining({ turns: 1, version: 1 })]);
        server.answer(json(200, text('msg_3', 'Done.')));
        await t.agent.run([...t.agent.history(), { role: 'user', content: 'Book 14C.' }]);
        expect(t.engines.at(-1)).toMatchObject({
          engine: 'provider',
          lastEngine: 'ctxkit',
          providerFallback: { code: expect.stringMatching(/^CTXKIT_LLM_/) },
        });
      }
    },
  );
});
