import {
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  createTokenCounter,
  CtxkitError,
  type StrategyFactory,
  type ToolDefinition,
} from '@ctxkit/core';
import { AgentSourceError } from '@ctxkit/core';
import { computeBudget, findPayloadProblems, PayloadComposer } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import {
  AIMessage,
  type BaseMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';

import { type RecordedModelRequest, RecordingChatModel } from './__fixtures__/recording-chat-model';
import { createCtxkitMiddleware, ctxkitMiddleware } from './ctxkit-middleware';
import { LangChainMessageError, SessionIdError } from './langchain-errors';
import { toChatMessages } from './to-chat-messages';
import { toToolDefinition } from './tool-definitions';

const counter = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' });

/** What a request costs by an independent count: the messages and the bound tools, as ctxkit counts them. */
function requestTokens(request: RecordedModelRequest): number {
  return (
    counter.countMessages(toChatMessages(request.messages)) + counter.countTools(request.tools.map(toToolDefinition))
  );
}

const lookup = tool(
  async (input: { q?: string }) =>
    `Results for ${input.q ?? ''}: ${'a long line of flight data JFK LAX 09:00 $420. '.repeat(40)}`,
  {
    name: 'lookup',
    description: 'Look flights up.',
    schema: { type: 'object', properties: { q: { type: 'string' } } },
  },
);

/** A model that calls `lookup` once per user message, then answers. */
function lookupThenAnswer(): RecordingChatModel {
  return new RecordingChatModel((messages, call) => {
    const last = messages[messages.length - 1];
    if (last instanceof HumanMessage)
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `call_${call}`, name: 'lookup', args: { q: last.text.slice(0, 20) }, type: 'tool_call' }],
      });
    return new AIMessage(`Answer ${call}.`);
  });
}

/** An in-process strategy: the composer with a notes block after the system prompt, recording what it is told. */
function notesStrategy(log: {
  turns: ChatMessage[][];
  sessions: string[];
}): StrategyFactory<{ maxContextTokens: number }> {
  return (config, context) => {
    log.sessions.push(context.sessionId);
    const budget = computeBudget({
      contextWindow: config.maxContextTokens,
      maxContextTokens: config.maxContextTokens,
      reserveOutputTokens: 0,
    });
    const composer = new PayloadComposer({
      owner: context,
      model: context.model,
      counter: context.counter,
      budget: () => budget,
    });
    return {
      async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[]) {
        return composer.compose({
          systemPrompt,
          history,
          tools,
          turn: log.turns.length,
          memory: [{ name: 'notes', content: `NOTES: ${history.length} messages so far`, placement: 'after-system' }],
        }).payload;
      },
      async onTurnComplete(history: ChatMessage[]) {
        log.turns.push(history);
      },
    };
  };
}

async function notesRuntime(log: { turns: ChatMessage[][]; sessions: string[] }): Promise<ContextRuntime> {
  const runtime = await createContextRuntime({ discoverInstalled: false });
  runtime.registerStrategy(
    {
      id: 'notes-strategy',
      configSchema: { type: 'object', properties: { maxContextTokens: { type: 'integer', default: 4000 } } },
    },
    notesStrategy(log),
  );
  return runtime;
}

/** The error LangChain surfaces for a middleware failure: ctxkit's typed error is its cause. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return CtxkitError.isInstance(error) ? error : ((error as { cause?: unknown }).cause ?? error);
  }
  throw new Error('expected the run to fail');
}

describe('ctxkitMiddleware with createAgent', () => {
  test(
    'every model call gets the strategy payload: within budget, valid, the newest user message present; the ' +
      'state keeps everything',
    async () => {
      // Drops only what must go (cutBackRatio 1): by default the first messages stay in front of a cut window.
      const ctxkit = ctxkitMiddleware({
        pluginId: 'std-sliding-window-strategy',
        config: { maxContextTokens: 1200, reserveOutputTokens: 0, cutBackRatio: 1 },
      });
      const model = lookupThenAnswer();
      const agent = createAgent({ model, tools: [lookup], systemPrompt: 'You book flights.', middleware: [ctxkit] });
      let messages: BaseMessage[] = [];
      const questions = [
        'Flights from JFK to LAX on May 3?',
        'And on May 4?',
        'What about business class?',
        'Any from EWR?',
        'Which is cheapest overall?',
      ];
      for (const question of questions) {
        const state = await agent.invoke(
          { messages: [...messages, new HumanMessage(question)] },
          { configurable: { thread_id: 'booking-1' } },
        );
        messages = state.messages;
      }
      expect(messages).toHaveLength(questions.length * 4);
      expect(model.requests).toHaveLength(questions.length * 2);
      for (const request of model.requests) {
        expect(requestTokens(request)).toBeLessThanOrEqual(1200);
        expect(findPayloadProblems(toChatMessages(request.messages))).toEqual([]);
        expect(request.messages.filter((message) => message instanceof SystemMessage)).toEqual([request.messages[0]]);
      }
      // the newest user message of each run is in every request of that run
      model.requests.forEach((request, index) =>
        expect(request.messages.some((message) => message.text === questions[Math.floor(index / 2)])).toBe(true),
      );
      // the window dropped the oldest turns by the end
      expect(model.requests.at(-1)!.messages.some((message) => message.text === questions[0])).toBe(false);
      await ctxkit.dispose();
    },
  );

  test(
    "each model call's cache reads and writes, and a cache-miss diagnosis, become an llm-usage event of the " +
      'thread',
    async () => {
      const ctxkit = ctxkitMiddleware({ pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 4000 } });
      const usages: unknown[] = [];
      (await ctxkit.getAgent()).events.on('llm-usage', (event) => usages.push(event));
      // What ChatAnthropic answers: LangChain's usage, the Messages API answer's fields in response_metadata.
      const model = new RecordingChatModel(
        () =>
          new AIMessage({
            content: 'Which flight?',
            usage_metadata: {
              input_tokens: 3560,
              output_tokens: 5,
              total_tokens: 3565,
              input_token_details: { cache_read: 2048, cache_creation: 1500 },
            },
            response_metadata: {
              model: 'claude-haiku-4-5-20251001',
              usage: {
                input_tokens: 12,
                output_tokens: 5,
                cache_read_input_tokens: 2048,
                cache_creation_input_tokens: 1500,
                cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
              },
              diagnostics: { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 2048 } },
            },
          }),
      );
      const agent = createAgent({ model, tools: [], systemPrompt: 'You are an airline agent.', middleware: [ctxkit] });
      await agent.invoke(
        { messages: [new HumanMessage('Change my flight')] },
        { configurable: { thread_id: 'conversation-7' } },
      );
      expect(usages).toEqual([
        {
          agentId: ctxkit.agent.id,
          sessionId: 'conversation-7',
          strategyId: 'std-sliding-window-strategy',
          turn: 1,
          model: 'claude-haiku-4-5-20251001',
          usage: {
            input_tokens: 12,
            cache_read_tokens: 2048,
            cache_creation_tokens: 1500,
            cache_creation_1h_tokens: 1200,
            output_tokens: 5,
            total_tokens: 3565,
          },
          cacheMiss: { reason: 'system_changed', missedTokens: 2048 },
        },
      ]);
      await ctxkit.dispose();
    },
  );

  test('the documented ten lines run as written (a recorded model in place of ChatOpenAI)', async () => {
    const ctxkit = ctxkitMiddleware({
      pluginId: 'std-summarization-strategy',
      config: { model: 'gpt-4o', maxContextTokens: 16000 },
    });
    const model = new RecordingChatModel(() => new AIMessage('Which flight?'));
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: 'You are an airline agent.',
      middleware: [ctxkit],
    });
    const state = await agent.invoke(
      { messages: [{ role: 'user', content: 'Change my flight' }] },
      { configurable: { thread_id: 'conversation-42' } },
    );
    expect(state.messages.map((message: BaseMessage) => message.text)).toEqual(['Change my flight', 'Which flight?']);
    expect(ctxkit.agent.strategyId).toBe('std-summarization-strategy');
    expect(ctxkit.agent.sessions()).toContain('conversation-42');
    await ctxkit.dispose();
  });

  test(
    'memory blocks join the system message after the prompt; onTurnComplete gets the whole conversation of each ' +
      'thread',
    async () => {
      const log = { turns: [] as ChatMessage[][], sessions: [] as string[] };
      const runtime = await notesRuntime(log);
      const ctxkit = ctxkitMiddleware({ pluginId: 'notes-strategy', runtime, waitForIdle: true });
      const model = new RecordingChatModel(() => new AIMessage('ok'));
      const agent = createAgent({ model, tools: [], systemPrompt: 'Prompt.', middleware: [ctxkit] });
      await agent.invoke({ messages: [{ role: 'user', content: 'one' }] }, { configurable: { thread_id: 'thread-a' } });
      await agent.invoke({ messages: [new HumanMessage('two')] }, { configurable: { thread_id: 'thread-b' } });
      expect(model.requests.map((request) => request.messages.map((message) => [message.type, message.text]))).toEqual([
        [
          ['system', 'Prompt.\n\nNOTES: 1 messages so far'],
          ['human', 'one'],
        ],
        [
          ['system', 'Prompt.\n\nNOTES: 1 messages so far'],
          ['human', 'two'],
        ],
      ]);
      expect(log.turns.map((turn) => turn.map((message) => [message.role, message.content]))).toEqual([
        [
          ['user', 'one'],
          ['assistant', 'ok'],
        ],
        [
          ['user', 'two'],
          ['assistant', 'ok'],
        ],
      ]);
      expect(ctxkit.agent.sessions()).toEqual(expect.arrayContaining(['default', 'thread-a', 'thread-b']));
      await runtime.dispose();
    },
  );

  test(
    'a system prompt of content blocks keeps its blocks (cache control included) and gets the memory as a ' + 'block',
    async () => {
      const log = { turns: [] as ChatMessage[][], sessions: [] as string[] };
      const runtime = await notesRuntime(log);
      const ctxkit = ctxkitMiddleware({ pluginId: 'notes-strategy', runtime });
      const model = new RecordingChatModel(() => new AIMessage('ok'));
      const systemPrompt = new SystemMessage({
        content: [{ type: 'text', text: 'Cached policy.', cache_control: { type: 'ephemeral' } }],
      });
      await createAgent({ model, tools: [], systemPrompt, middleware: [ctxkit] }).invoke({
        messages: [new HumanMessage('hi')],
      });
      expect(model.requests[0]!.messages[0]!.content).toEqual([
        { type: 'text', text: 'Cached policy.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: '\n\nNOTES: 1 messages so far' },
      ]);
      await runtime.dispose();
    },
  );

  test(
    'the tool output cache: its tools are bound only when an output is hidden, and the model reads a hidden ' +
      'output back through the strategy',
    async () => {
      const bigOutput = Array.from({ length: 400 }, (_, line) => `line ${line + 1}: ${'x'.repeat(40)}`).join('\n');
      const readFile = tool(async () => bigOutput, {
        name: 'read_file',
        description: 'Read a file.',
        schema: { type: 'object', properties: { path: { type: 'string' } } },
      });
      const ctxkit = ctxkitMiddleware({
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 3000, reserveOutputTokens: 0 },
      });
      // Nothing registered up front: the strategy's tools are bound per call, as its payload offers them.
      expect(ctxkit.tools ?? []).toEqual([]);
      let expanded = '';
      const model = new RecordingChatModel((messages) => {
        const last = messages[messages.length - 1]!;
        if (last instanceof HumanMessage && last.text.startsWith('Read'))
          return new AIMessage({
            content: '',
            tool_calls: [{ id: 'read_1', name: 'read_file', args: { path: 'big.txt' }, type: 'tool_call' }],
          });
        if (last instanceof HumanMessage) {
          const ref = messages
            .map((message) => /ref=(to_[0-9a-f]+)/.exec(message.text)?.[1])
            .find((found) => found !== undefined);
          return new AIMessage({
            content: '',
            tool_calls: [
              {
                id: 'expand_1',
                name: 'tool_output_cache',
                args: { ref_id: ref ?? 'none', offset: 396, limit: 5 },
                type: 'tool_call',
              },
            ],
          });
        }
        if (last instanceof ToolMessage && last.name === 'tool_output_cache') expanded = last.text;
        return new AIMessage('Done.');
      });
      const agent = createAgent({ model, tools: [readFile], systemPrompt: 'You read files.', middleware: [ctxkit] });
      const first = await agent.invoke(
        { messages: [new HumanMessage('Read big.txt.')] },
        { configurable: { thread_id: 'files' } },
      );
      const second = await agent.invoke(
        { messages: [...first.messages, new HumanMessage('What are its last lines?')] },
        { configurable: { thread_id: 'files' } },
      );
      const boundNames = model.requests.map((request) =>
        request.tools.map((bound) => (bound as { name: string }).name),
      );
      expect(boundNames[0]).toEqual(['read_file']);
      expect(boundNames.at(-2)).toEqual(expect.arrayContaining(['read_file', 'tool_output_cache']));
      expect(boundNames.flat()).not.toContain('compact'); // offered only with a model that can write the summary
      expect(expanded).toContain('line 400: ');
      expect(expanded).toContain('line 396: ');
      expect(expanded).not.toContain('line 395: ');
      for (const request of model.requests) expect(requestTokens(request)).toBeLessThanOrEqual(3000);
      // the agent's state keeps the whole output; only the model's view was cut
      expect(second.messages.some((message: BaseMessage) => message.text === bigOutput)).toBe(true);
      await ctxkit.dispose();
    },
  );

  test(
    'the tool output cache: compact is bound exactly when the strategy offers it, on no call without an LLM ' +
      'client, on every call with one',
    async () => {
      /** The tool names bound for every model call of three runs, each a lookup then an answer. */
      async function boundOverThreeRuns(llm?: ScriptedLLMClient): Promise<string[][]> {
        const ctxkit = ctxkitMiddleware({
          pluginId: 'std-tool-output-cache-strategy',
          config: { maxContextTokens: 16000 },
          ...(llm ? { runtimeOptions: { llm } } : {}),
        });
        try {
          const model = lookupThenAnswer();
          const agent = createAgent({
            model,
            tools: [lookup],
            systemPrompt: 'You book flights.',
            middleware: [ctxkit],
          });
          let messages: BaseMessage[] = [];
          for (let turn = 1; turn <= 3; turn++) {
            messages = (
              await agent.invoke(
                { messages: [...messages, new HumanMessage(`Flights to city ${turn}?`)] },
                { configurable: { thread_id: 'flights' } },
              )
            ).messages;
          }
          expect(model.requests).toHaveLength(6);
          return model.requests.map((request) => request.tools.map((bound) => (bound as { name: string }).name).sort());
        } finally {
          await ctxkit.dispose();
        }
      }
      expect(await boundOverThreeRuns()).toEqual(Array.from({ length: 6 }, () => ['lookup']));
      expect(await boundOverThreeRuns(new ScriptedLLMClient([], { repeatLast: true }))).toEqual(
        Array.from({ length: 6 }, () => ['compact', 'lookup']),
      );
    },
  );

  test(
    'a contributed tool that fails answers the model with the error (status error) and the run goes ' + 'on',
    async () => {
      const ctxkit = ctxkitMiddleware({
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 3000 },
      });
      const model = new RecordingChatModel((_messages, call) =>
        call === 0
          ? new AIMessage({
              content: '',
              tool_calls: [
                {
                  id: 'x1',
                  name: 'tool_output_cache',
                  args: { ref_id: 'to_00000000000000000000000000000000' },
                  type: 'tool_call',
                },
              ],
            })
          : new AIMessage('Sorry.'),
      );
      const state = await createAgent({ model, tools: [], middleware: [ctxkit] }).invoke({
        messages: [new HumanMessage('expand it')],
      });
      const result = state.messages.find((message: BaseMessage) => message instanceof ToolMessage) as ToolMessage;
      expect(result.status).toBe('error');
      expect(result.text).toMatch(/^Error: /);
      expect(state.messages.at(-1)!.text).toBe('Sorry.');
      await ctxkit.dispose();
    },
  );
});

describe('misuse and faults', () => {
  test.each([
    ['no strategy', {}, /no strategy given/],
    [
      'two strategy sources',
      { pluginId: 'std-sliding-window-strategy', manifest: { id: 'a' } },
      /manifest and pluginId given together/,
    ],
    ['config without pluginId', { manifest: { id: 'a' }, config: {} }, /config and agentId go with pluginId only/],
    ['an empty plugin id', { pluginId: '' }, /pluginId is empty/],
    ['a non-object', null, /options must be an object/],
  ])('createCtxkitMiddleware (deprecated), %s: AgentSourceError with the fix', async (_name, options, pattern) => {
    const error = await createCtxkitMiddleware(options as never).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AgentSourceError);
    expect((error as CtxkitError).code).toBe('CTXKIT_CONFIG_INVALID');
    expect((error as CtxkitError).message).toMatch(pattern);
    expect((error as CtxkitError).message).toContain('Fix: ');
  });

  test.each([
    ['no strategy', {}, /ctxkitMiddleware: no strategy given/],
    [
      'two strategy sources',
      { pluginId: 'std-sliding-window-strategy', manifest: { id: 'a' } },
      /manifest and pluginId given together/,
    ],
  ])('ctxkitMiddleware refuses %s where it is called, synchronously', (_name, options, pattern) => {
    expect(() => ctxkitMiddleware(options as never)).toThrow(AgentSourceError);
    expect(() => ctxkitMiddleware(options as never)).toThrow(pattern);
  });

  test(
    'ctxkitMiddleware opens nothing until the first model call; an unknown plugin then fails that ' + 'call',
    async () => {
      const runtime = await createContextRuntime();
      const loadAgent = runtime.loadAgent.bind(runtime);
      let loads = 0;
      runtime.loadAgent = (...args) => {
        loads++;
        return loadAgent(...args);
      };
      const lazy = ctxkitMiddleware({ pluginId: 'std-sliding-window-strategy', runtime });
      expect(loads).toBe(0);
      expect(() => lazy.agent).toThrow(/the agent is not open yet/);
      const model = new RecordingChatModel(() => new AIMessage('Hello.'));
      const agent = createAgent({ model, tools: [], middleware: [lazy] });
      expect(loads).toBe(0);
      await agent.invoke({ messages: [new HumanMessage('Hi')] });
      expect(loads).toBe(1);
      expect(lazy.agent.strategyId).toBe('std-sliding-window-strategy');
      const failing = createAgent({
        model,
        tools: [],
        middleware: [ctxkitMiddleware({ pluginId: 'no-such-strategy', runtime })],
      });
      await expect(failing.invoke({ messages: [new HumanMessage('Hi')] })).rejects.toThrow(/no-such-strategy/);
      await runtime.dispose();
    },
  );

  test('an unknown plugin id fails with the runtime typed error listing the installed ids', async () => {
    const error = await createCtxkitMiddleware({ pluginId: 'no-such-strategy' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as CtxkitError).code).toBe('CTXKIT_PLUGIN_NOT_FOUND');
    expect((error as CtxkitError).message).toContain('std-sliding-window-strategy');
  });

  test('a thread id that cannot name a session fails the run with SessionIdError', async () => {
    const ctxkit = ctxkitMiddleware({ pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 2000 } });
    const agent = createAgent({
      model: new RecordingChatModel(() => new AIMessage('ok')),
      tools: [],
      middleware: [ctxkit],
    });
    const raw = await agent
      .invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: 'x'.repeat(201) } })
      .catch((caught: unknown) => caught);
    // LangChain wraps a middleware's error; ctxkit's typed error is its cause
    expect((raw as Error).name).toBe('SessionIdError');
    const error = await failure(Promise.reject(raw));
    expect(error).toBeInstanceOf(SessionIdError);
    expect((error as CtxkitError).code).toBe('CTXKIT_STORE_KEY_INVALID');
    await ctxkit.dispose();
  });

  test('a message type ctxkit cannot hold fails the run with LangChainMessageError', async () => {
    const ctxkit = ctxkitMiddleware({ pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 2000 } });
    const agent = createAgent({
      model: new RecordingChatModel(() => new AIMessage('ok')),
      tools: [],
      middleware: [ctxkit],
    });
    const error = await failure(
      agent.invoke({ messages: [new FunctionMessage({ content: '42', name: 'f' }), new HumanMessage('hi')] }),
    );
    expect(error).toBeInstanceOf(LangChainMessageError);
    await ctxkit.dispose();
  });

  test('a system prompt over the budget fails the model call with BudgetExceededError; nothing is sent', async () => {
    const ctxkit = ctxkitMiddleware({
      pluginId: 'std-sliding-window-strategy',
      config: { maxContextTokens: 300, reserveOutputTokens: 0 },
    });
    const model = new RecordingChatModel(() => new AIMessage('ok'));
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: 'Follow the policy. '.repeat(200),
      middleware: [ctxkit],
    });
    const error = await failure(agent.invoke({ messages: [new HumanMessage('hi')] }));
    expect((error as CtxkitError).code).toBe('CTXKIT_BUDGET_EXCEEDED');
    expect(model.requests).toHaveLength(0);
    await ctxkit.dispose();
  });

  test(
    'a strategy that throws surfaces as StrategyError naming the plugin; after dispose the agent refuses ' + 'work',
    async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'broken-strategy' }, () => ({
        composePayload: async () => {
          throw new Error('injected fault');
        },
        onTurnComplete: async () => undefined,
      }));
      const ctxkit = ctxkitMiddleware({ pluginId: 'broken-strategy', runtime });
      const agent = createAgent({
        model: new RecordingChatModel(() => new AIMessage('ok')),
        tools: [],
        middleware: [ctxkit],
      });
      const error = await failure(agent.invoke({ messages: [new HumanMessage('hi')] }));
      expect((error as CtxkitError).code).toBe('CTXKIT_STRATEGY_ERROR');
      expect((error as CtxkitError).message).toContain('broken-strategy');
      await ctxkit.dispose();
      const afterDispose = await failure(agent.invoke({ messages: [new HumanMessage('hi')] }));
      expect((afterDispose as CtxkitError).code).toBe('CTXKIT_DISPOSED');
      await runtime.dispose();
    },
  );
});
