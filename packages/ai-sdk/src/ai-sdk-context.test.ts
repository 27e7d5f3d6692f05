/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { type ChatMessage, type ContextRuntime, createContextRuntime, CtxkitError, ErrorCodes } from '@ctxkit/core';
import { AgentSourceError } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import {
  type AiSdkContext,
  type AiSdkContextOptions,
  createAiSdkContext,
  DEFAULT_AI_SDK_AGENT_ID,
} from './ai-sdk-context';
import { RECORDING_STRATEGY_ID, type RecordingStrategy, registerRecordingStrategy } from './testing/recording-strategy';
import { generated, requestsOf, type ScriptedAnswer, streamed, streamOf } from './testing/scripted-model';
import { toChatMessages } from './to-chat-messages';

const SYSTEM = 'You help with bookings.';

function lookupTools(): ToolSet {
  return {
    lookup: tool({
      description: 'Look a booking up.',
      inputSchema: jsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      execute: async ({ id }) => `Booking ${id} is confirmed.`,
    }),
    cancel: tool({
      description: 'Cancel a booking.',
      inputSchema: jsonSchema<{ id: string }>({ type: 'object', properties: { id: { type: 'string' } } }),
      execute: async () => 'cancelled',
    }),
  };
}

function scripted(answers: ScriptedAnswer[]): MockLanguageModelV4 {
  const queue = [...answers];
  return new MockLanguageModelV4({
    doGenerate: async () => generated(queue.shift() ?? { text: 'Anything else?' }),
    doStream: async () => ({ stream: streamOf(streamed(queue.shift() ?? { text: 'Anything else?' })) }),
  });
}

function texts(messages: ReadonlyArray<ChatMessage>): string[] {
  return messages.map((message) => `${message.role}: ${messageText(message)}`);
}

async function rejection(promise: Promise<unknown>): Promise<CtxkitError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CtxkitError.isInstance(error)) throw new Error(`expected a ctxkit error, got ${String(error)}`);
  return error;
}

describe('createAiSdkContext (deprecated)', () => {
  it.each<[string, AiSdkContextOptions, RegExp]>([
    ['no agent', {}, /createAiSdkContext: no strategy given.*Fix: Pass exactly one of agent/],
    [
      'both agent and pluginId',
      { agent: { id: 'a' }, pluginId: 'std-sliding-window-strategy' },
      /manifest and pluginId given together/,
    ],
    [
      'config with an agent manifest',
      { agent: { id: 'a' }, config: { maxContextTokens: 1000 } },
      /config and agentId go with pluginId only.*Fix: Put the config in the manifest/,
    ],
    [
      'runtime and runtimeOptions',
      { pluginId: 'std-sliding-window-strategy', runtimeOptions: {}, runtime: {} as ContextRuntime },
      /runtime and runtimeOptions given together/,
    ],
  ])('rejects %s with the one options error (CTXKIT_CONFIG_INVALID) and the fix', async (_name, options, message) => {
    const error = await rejection(createAiSdkContext(options));
    expect(error).toBeInstanceOf(AgentSourceError);
    expect(error.code).toBe(ErrorCodes.CONFIG_INVALID);
    expect(error.message).toMatch(message);
  });

  it(
    "lets the runtime's errors through: an unknown plugin, a config the plugin's schema rejects, an over-long " +
      'session id',
    async () => {
      expect((await rejection(createAiSdkContext({ pluginId: 'no-such-strategy' }))).code).toBe(
        ErrorCodes.PLUGIN_NOT_FOUND,
      );
      expect(
        (
          await rejection(
            createAiSdkContext({ pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 'big' } }),
          )
        ).code,
      ).toBe(ErrorCodes.CONFIG_INVALID);
      expect(
        (await rejection(createAiSdkContext({ pluginId: 'std-sliding-window-strategy', sessionId: 'x'.repeat(201) })))
          .code,
      ).toBe(ErrorCodes.STORE_KEY_INVALID);
    },
  );

  it('loads the agent a plugin.json declares, and the installed standard strategies by id', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxkit-ai-sdk-'));
    try {
      const manifest = {
        id: 'support-agent',
        model: 'gpt-4o-mini',
        contextStrategy: { type: 'plugin', pluginId: 'std-summarization-strategy', config: { maxContextTokens: 4000 } },
      };
      await writeFile(path.join(dir, 'plugin.json'), JSON.stringify(manifest));
      const fromFile = await createAiSdkContext({ agent: path.join(dir, 'plugin.json'), sessionId: 'conversation-42' });
      expect([fromFile.agent.id, fromFile.agent.strategyId, fromFile.agent.model, fromFile.sessionId]).toEqual([
        'support-agent',
        'std-summarization-strategy',
        'gpt-4o-mini',
        'conversation-42',
      ]);
      await fromFile.dispose();
      const byId = await createAiSdkContext({
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 16000 },
      });
      expect([byId.agent.id, byId.agent.strategyId, byId.agent.config.maxContextTokens]).toEqual([
        DEFAULT_AI_SDK_AGENT_ID,
        'std-tool-output-cache-strategy',
        16000,
      ]);
      expect(Object.keys(byId.tools()).sort()).toEqual(['compact', 'tool_output_cache', 'tool_output_cache_grep']);
      await byId.dispose();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('disposes what it created (safe twice), and leaves an agent it was given alone', async () => {
    const runtime = await createContextRuntime();
    const agent = await runtime.loadAgent({ id: 'given-agent' });
    const given = await createAiSdkContext({ agent });
    await given.dispose();
    expect(agent.disposed).toBe(false);
    const onRuntime = await createAiSdkContext({
      runtime,
      pluginId: 'std-sliding-window-strategy',
      agentId: 'loaded-here',
    });
    await onRuntime.dispose();
    await onRuntime.dispose();
    expect(onRuntime.agent.disposed).toBe(true);
    expect(runtime.agents().map((loaded) => loaded.id)).toEqual(['given-agent']);
    const error = await rejection(onRuntime.compose({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.code).toBe(ErrorCodes.DISPOSED);
    await runtime.dispose();
  });
});

describe('AiSdkContext', () => {
  let runtime: ContextRuntime;
  let strategies: RecordingStrategy[];
  let context: AiSdkContext;

  async function open(
    config: Record<string, unknown>,
    options: Partial<AiSdkContextOptions> = {},
  ): Promise<AiSdkContext> {
    runtime = await createContextRuntime({ discoverInstalled: false });
    strategies = registerRecordingStrategy(runtime);
    context = await createAiSdkContext({ runtime, pluginId: RECORDING_STRATEGY_ID, config, ...options });
    return context;
  }

  afterEach(async () => {
    await context?.dispose();
    await runtime?.dispose();
  });

  describe('#prepareStep', () => {
    it(
      'composes each step from the whole conversation (not the previous payload) and reports the turn at ' + 'onEnd',
      async () => {
        await open({ maxContextTokens: 600 });
        const model = scripted([
          { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B1' } }] },
          { calls: [{ id: 'c2', name: 'lookup', input: { id: 'B2' } }] },
          { text: 'Both confirmed.' },
        ]);
        const past: ModelMessage[] = Array.from({ length: 10 }, (_, n): ModelMessage[] => [
          { role: 'user', content: `Earlier question ${n}: ${'tell me more about the fare rules. '.repeat(4)}` },
          { role: 'assistant', content: `Earlier answer ${n}: ${'the fare allows one change. '.repeat(4)}` },
        ]).flat();
        const messages: ModelMessage[] = [...past, { role: 'user', content: 'Check B1 and B2.' }];
        const result = await generateText({
          model,
          system: SYSTEM,
          messages,
          tools: context.tools(lookupTools()),
          prepareStep: context.prepareStep,
          onEnd: context.onEnd,
          stopWhen: stepCountIs(5),
        });
        const histories = strategies[0]!.compositions.map((composition) => composition.history.length);
        expect(histories).toEqual([21, 23, 25]);
        for (const [index, request] of requestsOf(model).entries()) {
          const payload = strategies[0]!.compositions[index]!.payload;
          expect(texts(toChatMessages(request.prompt))).toEqual(texts(payload.messages));
        }
        expect(requestsOf(model)[0]!.prompt.length).toBeLessThan(messages.length + 1);
        expect(strategies[0]!.turns).toHaveLength(1);
        expect(texts(strategies[0]!.turns[0]!)).toEqual(
          texts(toChatMessages([...messages, ...result.responseMessages])),
        );
      },
    );

    it("sends the strategy's memory as instructions after yours, and takes it back when a step has none", async () => {
      await open({ memory: ['Summary: the customer flies Friday.', '', 'Summary: and returns Sunday.'] });
      const model = scripted([
        { calls: [{ id: 'c1', name: 'lookup', input: { id: 'B1' } }] },
        { calls: [{ id: 'c2', name: 'lookup', input: { id: 'B2' } }] },
        { text: 'Done.' },
      ]);
      await generateText({
        model,
        system: SYSTEM,
        prompt: 'Check my bookings.',
        tools: context.tools(lookupTools()),
        prepareStep: context.prepareStep,
        onEnd: context.onEnd,
        stopWhen: stepCountIs(5),
      });
      const systems = requestsOf(model).map((request) =>
        request.prompt.filter((message) => message.role === 'system').map((message) => message.content),
      );
      expect(systems).toEqual([
        [SYSTEM, 'Summary: the customer flies Friday.'],
        [SYSTEM],
        [SYSTEM, 'Summary: and returns Sunday.'],
      ]);
    });

    it('offers only the tools the payload holds (activeTools), and every tool when it holds all', async () => {
      await open({ withhold: ['cancel'] });
      const model = scripted([{ text: 'ok' }]);
      await generateText({
        model,
        system: SYSTEM,
        prompt: 'Hi',
        tools: context.tools(lookupTools()),
        prepareStep: context.prepareStep,
        onEnd: context.onEnd,
      });
      expect(requestsOf(model)[0]!.tools!.map((sent) => sent.name)).toEqual(['lookup']);
      const composed = await context.compose({
        instructions: SYSTEM,
        messages: [{ role: 'user', content: 'Hi' }],
        tools: context.tools(lookupTools()),
      });
      expect(composed.activeTools).toEqual(['lookup']);
      expect(composed.instructions).toBe(SYSTEM);
    });

    it('works with streamText, and warns once when the tools were not given through context.tools()', async () => {
      await open({});
      const warnings: string[] = [];
      context.agent.events.on('strategy-warning', (event) => warnings.push(event.message));
      const model = scripted([{ text: 'Streamed.' }, { text: 'Again.' }]);
      const first = streamText({
        model,
        system: SYSTEM,
        prompt: 'Hi',
        prepareStep: context.prepareStep,
        onEnd: context.onEnd,
      });
      expect(await first.text).toBe('Streamed.');
      const second = streamText({
        model,
        system: SYSTEM,
        prompt: 'Hi again',
        prepareStep: context.prepareStep,
        onEnd: context.onEnd,
      });
      expect(await second.text).toBe('Again.');
      // streamText settles its text before its onEnd has finished; the turn report (a store read, then
      // the strategy) lands a few ticks later.
      for (let wait = 0; wait < 100 && strategies[0]!.turns.length < 2; wait++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(strategies[0]!.turns.map((turn) => texts(turn))).toEqual([
        ['user: Hi', 'assistant: Streamed.'],
        ['user: Hi again', 'assistant: Again.'],
      ]);
      expect(warnings).toEqual([
        expect.stringMatching(/prepareStep counts no tools: pass tools: context\.tools\(yourTools\)/),
      ]);
    });

    it(
      'offers compact exactly when the strategy offers it: on no step without an LLM client, on every step with ' +
        'one',
      async () => {
        /** The tool names sent on every step of three turns, each a lookup then an answer. */
        async function offeredOverThreeTurns(llm?: ScriptedLLMClient): Promise<string[][]> {
          context = await createAiSdkContext({
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
              model,
              system: SYSTEM,
              messages,
              tools: context.tools(lookupTools()),
              prepareStep: context.prepareStep,
              onEnd: context.onEnd,
              stopWhen: stepCountIs(4),
            });
            messages.push(...result.responseMessages);
          }
          await context.dispose();
          expect(requestsOf(model)).toHaveLength(6);
          return requestsOf(model).map((request) => (request.tools ?? []).map((sent) => sent.name).sort());
        }
        expect(await offeredOverThreeTurns()).toEqual(Array.from({ length: 6 }, () => ['cancel', 'lookup']));
        expect(await offeredOverThreeTurns(new ScriptedLLMClient([], { repeatLast: true }))).toEqual(
          Array.from({ length: 6 }, () => ['cancel', 'compact', 'lookup']),
        );
      },
    );

    it("refuses a run without the strategy's tools (CTXKIT_TOOL_NOT_FOUND), before anything is sent", async () => {
      await open({ recall: true });
      const model = scripted([{ text: 'never sent' }]);
      const error = await rejection(
        generateText({ model, system: SYSTEM, prompt: 'Hi', tools: lookupTools(), prepareStep: context.prepareStep }),
      );
      expect(error.code).toBe(ErrorCodes.TOOL_NOT_FOUND);
      expect(requestsOf(model)).toHaveLength(0);
    });
  });

  describe('#compose and #reportTurn', () => {
    it('compose returns what to send and the stats; reportTurn gives the strategy the whole conversation', async () => {
      await open({ memory: ['Notes.'] });
      const messages: ModelMessage[] = [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
      ];
      const composed = await context.compose({ instructions: { role: 'system', content: SYSTEM }, messages });
      expect(composed.instructions).toEqual([
        { role: 'system', content: SYSTEM },
        { role: 'system', content: 'Notes.' },
      ]);
      expect(composed.messages[0]).toBe(messages[0]);
      expect(composed.messages[1]).toBe(messages[1]);
      expect(composed.payload.stats.strategyId).toBe(RECORDING_STRATEGY_ID);
      await context.reportTurn(messages);
      expect(texts(strategies[0]!.turns[0]!)).toEqual(['user: Hi', 'assistant: Hello!']);
    });

    it('passes the dynamic context and the compose options to the strategy', async () => {
      await open(
        {},
        {
          ragContext: (history) => `Facts for ${history.length} messages.`,
          composeOptions: { collapseOlderToolResults: true },
        },
      );
      await context.compose({ messages: [{ role: 'user', content: 'Hi' }] });
      const [composition] = strategies[0]!.compositions;
      expect(composition!.ragContext).toBe('Facts for 1 messages.');
      expect(composition!.options).toEqual({ collapseOlderToolResults: true });
      expect(composition!.payload.messages[1]).toEqual({ role: 'system', content: 'Facts for 1 messages.' });
    });
  });
});
