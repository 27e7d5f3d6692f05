/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import {
  AgentSourceError,
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  CtxkitError,
  ErrorCodes,
  type ITokenCounter,
} from '@ctxkit/core';
import { findPayloadProblems, messageText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  ToolLoopAgent,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import type { LanguageModelCallOptions, LanguageModelFunctionTool } from './ai-sdk-types';
import { type CtxkitLanguageModelMiddleware, ctxkitMiddleware } from './ctxkit-middleware';
import { ContributedToolsMissingError } from './errors/contributed-tools-missing-error';
import { RECORDING_STRATEGY_ID, type RecordingStrategy, registerRecordingStrategy } from './testing/recording-strategy';
import { generated, requestsOf, type ScriptedAnswer, streamed, streamOf } from './testing/scripted-model';
import { toChatMessages } from './to-chat-messages';
import { functionToolDefinition } from './tool-definitions';

const SYSTEM = 'You are the airline assistant. Answer from the tools.';

function weatherTools(): ToolSet {
  return {
    lookup: tool({
      description: 'Look a booking up.',
      inputSchema: jsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      execute: async ({ id }) => `Booking ${id}: ${'confirmed, window seat, two bags. '.repeat(20)}`,
    }),
  };
}

/** A past conversation of `turns` question / lookup / answer turns. */
function pastTurns(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let n = 0; n < turns; n++) {
    messages.push(
      { role: 'user', content: `Question ${n}: what about booking B${n}? ${'Please be thorough. '.repeat(10)}` },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `past-${n}`, toolName: 'lookup', input: { id: `B${n}` } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `past-${n}`,
            toolName: 'lookup',
            output: { type: 'text', value: `Booking B${n}: ${'confirmed. '.repeat(40)}` },
          },
        ],
      },
      { role: 'assistant', content: `Booking B${n} is confirmed.` },
    );
  }
  return messages;
}

function scripted(answers: ScriptedAnswer[]): MockLanguageModelV4 {
  const queue = [...answers];
  return new MockLanguageModelV4({
    doGenerate: async () => generated(queue.shift() ?? { text: 'Anything else?' }),
    doStream: async () => ({ stream: streamOf(streamed(queue.shift() ?? { text: 'Anything else?' })) }),
  });
}

/** What the strategy's counter says a request costs (messages + function tools). */
function requestTokens(counter: ITokenCounter, request: LanguageModelCallOptions): number {
  const tools = (request.tools ?? [])
    .filter((tool): tool is LanguageModelFunctionTool => tool.type === 'function')
    .map(functionToolDefinition);
  return counter.countMessages(toChatMessages(request.prompt)) + counter.countTools(tools);
}

function texts(messages: ReadonlyArray<ChatMessage>): string[] {
  return messages.map((message) => `${message.role}: ${messageText(message)}`);
}

describe('ctxkitMiddleware', () => {
  let runtime: ContextRuntime;
  let strategies: RecordingStrategy[];
  let context: CtxkitLanguageModelMiddleware;

  async function open(config: Record<string, unknown>): Promise<CtxkitLanguageModelMiddleware> {
    runtime = await createContextRuntime({ discoverInstalled: false });
    strategies = registerRecordingStrategy(runtime);
    context = ctxkitMiddleware({ runtime, pluginId: RECORDING_STRATEGY_ID, config });
    return context;
  }

  afterEach(async () => {
    await context?.dispose();
    await runtime?.dispose();
  });

  it(
    'composes every call of a tool loop within the budget: valid, the newest user message and the system prompt ' +
      'kept',
    async () => {
      await open({ maxContextTokens: 1500 });
      const model = scripted([
        { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B9' } }] },
        { calls: [{ id: 'c2', name: 'lookup', input: { id: 'B10' } }] },
        { text: 'Both are confirmed.' },
      ]);
      const question = 'And what about bookings B9 and B10?';
      const result = await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        messages: [...pastTurns(12), { role: 'user', content: question }],
        tools: await context.tools(weatherTools()),
        stopWhen: stepCountIs(5),
      });
      expect(result.text).toBe('Both are confirmed.');
      const requests = requestsOf(model);
      expect(requests).toHaveLength(3);
      const counter = strategies[0]!.context.counter;
      for (const request of requests) {
        const sent = toChatMessages(request.prompt);
        expect(requestTokens(counter, request)).toBeLessThanOrEqual(1500);
        expect(findPayloadProblems(sent)).toEqual([]);
        expect(request.prompt[0]).toEqual({ role: 'system', content: SYSTEM });
        expect(texts(sent)).toContain(`user: ${question}`);
      }
      // The past turns did not fit: the strategy dropped the oldest, and the model got what it kept.
      expect(toChatMessages(requests[0]!.prompt).length).toBeLessThan(1 + 12 * 4 + 1);
      expect(strategies[0]!.compositions.map((composition) => composition.history.length)).toEqual([49, 51, 53]);
    },
  );

  it.each([
    ['keeps', false],
    ['copies', true],
  ])(
    "sends the caller's system messages as they are, then the strategy's memory, and the kept history as it came (a " +
      'strategy that %s messages)',
    async (_name, copy) => {
      await open({ memory: ['Notes: the customer is a gold member.'], copy });
      const model = scripted([{ text: 'Hello again.' }]);
      const unwrapped = scripted([{ text: 'Hello again.' }]);
      const instructions = [
        {
          role: 'system' as const,
          content: SYSTEM,
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        { role: 'system' as const, content: 'Today is Monday.' },
      ];
      const messages: ModelMessage[] = [
        ...pastTurns(2),
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Greet back.', providerOptions: { anthropic: { signature: 'sig' } } },
            { type: 'text', text: 'Yes.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Hi!', providerOptions: { openai: { itemId: 'msg_1' } } }] },
      ];
      await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        instructions,
        messages,
        tools: await context.tools(weatherTools()),
      });
      await generateText({ model: unwrapped, instructions, messages, tools: weatherTools() });
      const [sent] = requestsOf(model);
      const [plain] = requestsOf(unwrapped);
      expect(sent!.prompt.slice(0, 3)).toEqual([
        ...plain!.prompt.slice(0, 2),
        { role: 'system', content: 'Notes: the customer is a gold member.' },
      ]);
      expect(sent!.prompt.slice(3)).toEqual(plain!.prompt.slice(2));
      expect(sent!.tools).toEqual(plain!.tools);
      expect(strategies[0]!.compositions[0]!.systemPrompt).toBe(`${SYSTEM}\n\nToday is Monday.`);
    },
  );

  it(
    'reports the turn once, when the model answers without a tool call, with the whole conversation and the ' +
      'answer',
    async () => {
      await open({});
      const model = scripted([
        { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B1' } }] },
        { text: 'B1 is confirmed.' },
      ]);
      const messages: ModelMessage[] = [...pastTurns(1), { role: 'user', content: 'Check B1 again.' }];
      const result = await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        messages,
        tools: await context.tools(weatherTools()),
        stopWhen: stepCountIs(5),
      });
      const [turn] = strategies[0]!.turns;
      expect(strategies[0]!.turns).toHaveLength(1);
      expect(texts(turn!)).toEqual(texts(toChatMessages([...messages, ...result.responseMessages])));
    },
  );

  it('reports a streamed turn once the stream has ended, and not when the stream fails', async () => {
    await open({});
    const answers = [
      streamed({ calls: [{ id: 'c1', name: 'lookup', input: { id: 'B1' } }] }),
      streamed({ text: 'B1 is confirmed.' }),
    ];
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: streamOf(answers.shift()!) }) });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Check B1.' }];
    const run = streamText({
      model: wrapLanguageModel({ model, middleware: context }),
      system: SYSTEM,
      messages,
      tools: await context.tools(weatherTools()),
      stopWhen: stepCountIs(5),
    });
    expect(await run.text).toBe('B1 is confirmed.');
    expect(strategies[0]!.turns).toHaveLength(1);
    expect(texts(strategies[0]!.turns[0]!)).toEqual(
      texts(toChatMessages([...messages, ...(await run.responseMessages)])),
    );

    const failing = new MockLanguageModelV4({
      doStream: async () => ({ stream: streamOf(streamed({ text: 'Half an answ' }, true)) }),
    });
    const broken = streamText({
      model: wrapLanguageModel({ model: failing, middleware: context }),
      system: SYSTEM,
      messages,
      onError: () => undefined,
    });
    await broken.consumeStream();
    expect(strategies[0]!.turns).toHaveLength(1);
  });

  it(
    "records each call's cache reads and writes, and a cache-miss diagnosis, as an llm-usage event of the " +
      'conversation',
    async () => {
      await open({});
      const usages: unknown[] = [];
      (await context.getAgent()).events.on('llm-usage', (event) => usages.push(event));
      // An Anthropic answer as its provider package hands it back: standard usage, the raw usage and the body.
      const raw = {
        input_tokens: 12,
        output_tokens: 5,
        cache_read_input_tokens: 2048,
        cache_creation_input_tokens: 1500,
        cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
      };
      const model = new MockLanguageModelV4({
        modelId: 'claude-haiku-4-5',
        doGenerate: async () => ({
          ...generated({ text: 'B1 is confirmed.' }),
          usage: {
            inputTokens: { total: 3560, noCache: 12, cacheRead: 2048, cacheWrite: 1500 },
            outputTokens: { total: 5, text: 5, reasoning: 0 },
            raw,
          },
          response: {
            body: {
              id: 'msg_2',
              usage: raw,
              diagnostics: { cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: 2048 } },
            },
          },
        }),
        doStream: async () => ({
          stream: streamOf(
            streamed({ text: 'Still confirmed.' }).map((part) =>
              part.type === 'finish'
                ? {
                    ...part,
                    usage: {
                      inputTokens: { total: 40, noCache: 4, cacheRead: 36, cacheWrite: 0 },
                      outputTokens: { total: 3, text: 3, reasoning: 0 },
                    },
                  }
                : part,
            ),
          ),
        }),
      });
      const wrapped = wrapLanguageModel({ model, middleware: context });
      const messages: ModelMessage[] = [...pastTurns(1), { role: 'user', content: 'Check B1 again.' }];
      await generateText({ model: wrapped, system: SYSTEM, messages });
      await streamText({ model: wrapped, system: SYSTEM, messages }).consumeStream();
      expect(usages).toEqual([
        {
          agentId: context.agent.id,
          sessionId: context.sessionId,
          strategyId: RECORDING_STRATEGY_ID,
          turn: 2,
          model: 'claude-haiku-4-5',
          usage: {
            input_tokens: 12,
            cache_read_tokens: 2048,
            cache_creation_tokens: 1500,
            cache_creation_1h_tokens: 1200,
            output_tokens: 5,
            total_tokens: 3565,
          },
          cacheMiss: { reason: 'tools_changed', missedTokens: 2048 },
        },
        expect.objectContaining({
          turn: 2,
          usage: {
            input_tokens: 4,
            cache_read_tokens: 36,
            cache_creation_tokens: 0,
            output_tokens: 3,
            total_tokens: 43,
          },
        }),
      ]);
      expect(usages[1]).not.toHaveProperty('cacheMiss');
    },
  );

  it("runs the strategy's own tool through the strategy, with the call's id", async () => {
    await open({ recall: true });
    const model = scripted([
      { calls: [{ id: 'r1', name: 'recall', input: { key: 'seat' } }] },
      { text: 'You like the window.' },
    ]);
    const tools = await context.tools(weatherTools());
    expect(Object.keys(tools).sort()).toEqual(['lookup', 'recall']);
    await generateText({
      model: wrapLanguageModel({ model, middleware: context }),
      system: SYSTEM,
      prompt: 'Which seat do I like?',
      tools,
      stopWhen: stepCountIs(3),
    });
    expect(requestsOf(model).map((request) => request.tools!.map((sent) => sent.name))).toEqual([
      ['lookup', 'recall'],
      ['lookup', 'recall'],
    ]);
    expect(strategies[0]!.toolCalls).toEqual([{ args: { key: 'seat' }, toolCallId: 'r1', sessionId: 'default' }]);
    const second = toChatMessages(requestsOf(model)[1]!.prompt);
    expect(second[second.length - 1]).toEqual({ role: 'tool', tool_call_id: 'r1', content: 'note seat (call r1)' });
  });

  it(
    "refuses, before anything is sent, a call that lacks the strategy's tools (CTXKIT_TOOL_NOT_FOUND with the " +
      'fix)',
    async () => {
      await open({ recall: true });
      const model = scripted([{ text: 'never sent' }]);
      const run = generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        prompt: 'Hi',
        tools: weatherTools(),
      });
      const error = await run.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ContributedToolsMissingError);
      expect((error as CtxkitError).code).toBe(ErrorCodes.TOOL_NOT_FOUND);
      expect((error as CtxkitError).message).toMatch(/"recall".*Fix: Pass tools: context\.tools\(yourTools\)/);
      expect(requestsOf(model)).toHaveLength(0);
    },
  );

  it(
    "sends only the tools the payload offers, the caller's exactly as the AI SDK wrote them; provider tools " + 'pass',
    async () => {
      await open({ withhold: ['lookup'] });
      const model = scripted([{ text: 'ok' }]);
      const tools: ToolSet = {
        ...weatherTools(),
        search: tool({
          description: 'Search.',
          inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
          strict: true,
          execute: async () => 'none',
        }),
        web: tool({
          type: 'provider',
          id: 'openai.web_search',
          args: {},
          isProviderExecuted: true,
          inputSchema: jsonSchema({ type: 'object' }),
        }),
      };
      await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        prompt: 'Find it.',
        tools: await context.tools(tools),
      });
      const [request] = requestsOf(model);
      expect(request!.tools!.map((sent) => sent.name)).toEqual(['search', 'web']);
      expect(request!.tools![0]).toEqual({
        type: 'function',
        name: 'search',
        description: 'Search.',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        strict: true,
      });
      expect(strategies[0]!.compositions[0]!.tools.map((definition) => definition.function.name)).toEqual([
        'lookup',
        'search',
      ]);
    },
  );

  it("lets the strategy's budget error through, before the model is called", async () => {
    await open({ maxContextTokens: 300 });
    const model = scripted([{ text: 'never sent' }]);
    const error = await generateText({
      model: wrapLanguageModel({ model, middleware: context }),
      system: SYSTEM.repeat(60),
      prompt: 'Hi',
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(CtxkitError.isInstance(error)).toBe(true);
    expect((error as CtxkitError).code).toBe(ErrorCodes.BUDGET_EXCEEDED);
    expect(requestsOf(model)).toHaveLength(0);
  });

  it('composes the calls of a ToolLoopAgent the same way', async () => {
    await open({ memory: ['Notes: prefers aisle seats.', 'Notes: prefers aisle seats.'] });
    const model = scripted([
      { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B3' } }] },
      { text: 'B3 is confirmed.' },
    ]);
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model, middleware: context }),
      instructions: SYSTEM,
      tools: await context.tools(weatherTools()),
      stopWhen: stepCountIs(4),
    });
    const result = await agent.generate({ prompt: 'Is B3 confirmed?' });
    expect(result.text).toBe('B3 is confirmed.');
    for (const request of requestsOf(model))
      expect(request.prompt.slice(0, 2).map((message) => message.content)).toEqual([
        SYSTEM,
        'Notes: prefers aisle seats.',
      ]);
    expect(strategies[0]!.turns.map((turn) => texts(turn).at(-1))).toEqual(['assistant: B3 is confirmed.']);
  });

  it('is synchronous: checks its options at once, and opens the agent on the first model call only', async () => {
    expect(() => ctxkitMiddleware({} as never)).toThrow(AgentSourceError);
    expect(() => ctxkitMiddleware({ pluginId: 'x', manifest: { id: 'a' } })).toThrow(
      /ctxkitMiddleware: manifest and pluginId given together/,
    );
    runtime = await createContextRuntime({ discoverInstalled: false });
    strategies = registerRecordingStrategy(runtime);
    const loadAgent = runtime.loadAgent.bind(runtime);
    let loads = 0;
    runtime.loadAgent = (...args) => {
      loads++;
      return loadAgent(...args);
    };
    context = ctxkitMiddleware({ runtime, pluginId: RECORDING_STRATEGY_ID, config: {} });
    const model = wrapLanguageModel({ model: scripted([{ text: 'one' }, { text: 'two' }]), middleware: context });
    expect(loads).toBe(0);
    expect(() => context.agent).toThrow(/the agent is not open yet/);
    await generateText({ model, system: SYSTEM, prompt: 'First.' });
    await generateText({ model, system: SYSTEM, prompt: 'Second.' });
    expect(loads).toBe(1);
    expect(context.agent.strategyId).toBe(RECORDING_STRATEGY_ID);
    const failing = ctxkitMiddleware({ runtime, pluginId: 'no-such-strategy' });
    await expect(
      generateText({
        model: wrapLanguageModel({ model: scripted([{ text: 'x' }]), middleware: failing }),
        prompt: 'Hi',
      }),
    ).rejects.toMatchObject({ code: ErrorCodes.PLUGIN_NOT_FOUND });
  });

  it('keeps sessions apart: each conversation has its own strategy instance', async () => {
    await open({});
    const other = context.forSession('conversation-2');
    const model = scripted([{ text: 'one' }, { text: 'two' }]);
    await generateText({
      model: wrapLanguageModel({ model, middleware: context }),
      system: SYSTEM,
      prompt: 'First conversation.',
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: other }),
      system: SYSTEM,
      prompt: 'Second conversation.',
    });
    expect(
      strategies.map((strategy) => [strategy.context.sessionId, strategy.turns.map((turn) => texts(turn))]),
    ).toEqual([
      ['default', [['user: First conversation.', 'assistant: one']]],
      ['conversation-2', [['user: Second conversation.', 'assistant: two']]],
    ]);
  });
});

describe("ctxkitMiddleware with the tool output cache's tools", () => {
  let context: CtxkitLanguageModelMiddleware | undefined;

  afterEach(async () => {
    await context?.dispose();
    context = undefined;
  });

  /** The tool names of every request of three turns, each a lookup then an answer. */
  async function offeredOverThreeTurns(llm?: ScriptedLLMClient): Promise<string[][]> {
    context = ctxkitMiddleware({
      pluginId: 'std-tool-output-cache-strategy',
      config: { maxContextTokens: 16000 },
      ...(llm ? { loadOptions: { llm } } : {}),
    });
    const model = scripted(
      [1, 2, 3].flatMap((turn): ScriptedAnswer[] => [
        { calls: [{ id: `c${turn}`, name: 'lookup', input: { id: `B${turn}` } }] },
        { text: `B${turn} is confirmed.` },
      ]),
    );
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      messages.push({ role: 'user', content: `Is booking B${turn} confirmed?` });
      const result = await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        messages,
        tools: await context.tools(weatherTools()),
        stopWhen: stepCountIs(4),
      });
      messages.push(...result.responseMessages);
    }
    expect(requestsOf(model)).toHaveLength(6);
    return requestsOf(model).map((request) => (request.tools ?? []).map((sent) => sent.name).sort());
  }

  it(
    "sends the session's pin tools (a manifest with pinTool) on every request, as the kernel offers " + 'them',
    async () => {
      context = ctxkitMiddleware({
        manifest: {
          id: 'pinning',
          pinTool: true,
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-tool-output-cache-strategy',
            config: { maxContextTokens: 16000 },
          },
        },
      });
      const model = scripted([
        { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B1' } }] },
        { text: 'B1 is confirmed.' },
      ]);
      await generateText({
        model: wrapLanguageModel({ model, middleware: context }),
        system: SYSTEM,
        prompt: 'Is B1 confirmed?',
        tools: await context.tools(weatherTools()),
        stopWhen: stepCountIs(4),
      });
      expect(requestsOf(model).map((request) => (request.tools ?? []).map((sent) => sent.name).sort())).toEqual([
        ['lookup', 'pin_context', 'unpin_context'],
        ['lookup', 'pin_context', 'unpin_context'],
      ]);
    },
  );

  it(
    'sends compact exactly when the strategy offers it: on no request without an LLM client, on every request with ' +
      'one',
    async () => {
      expect(await offeredOverThreeTurns()).toEqual(Array.from({ length: 6 }, () => ['lookup']));
      await context?.dispose();
      expect(await offeredOverThreeTurns(new ScriptedLLMClient([], { repeatLast: true }))).toEqual(
        Array.from({ length: 6 }, () => ['compact', 'lookup']),
      );
    },
  );
});
