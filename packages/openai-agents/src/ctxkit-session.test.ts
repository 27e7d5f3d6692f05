import {
  type ContextRuntime,
  createContextRuntime,
  createTokenCounter,
  MemoryContextStore,
  StoreError,
  type StoreKey,
} from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import {
  Agent,
  type AgentInputItem,
  MemorySession,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';

import { AgentSourceError, createCtxkitSession, CtxkitSession, toChatMessages, toToolDefinitions } from './index';
import { assistantText, functionCall, ScriptedAgentsModel } from './testing/scripted-agents-model';

setTracingDisabled(true);

const counter = createTokenCounter({ model: 'gpt-4o' });
const INSTRUCTIONS = 'You are a travel agent. Look flights up before you answer.';

function lookupTool(outputs: string[]) {
  return tool({
    name: 'lookup_flights',
    description: 'Flights between two airports on a date.',
    parameters: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' } },
      required: ['from', 'to'],
      additionalProperties: false,
    },
    strict: true,
    execute: async () => outputs.shift() ?? 'no flights',
  });
}

function flights(turn: number, call: number): string {
  return Array.from(
    { length: 40 },
    (_, row) =>
      `flight UA${turn}${call}${row} departs ${String(row % 24).padStart(2, '0')}:00 seats ${row * 3} ` +
      `price ${100 + row}`,
  ).join('\n');
}

/** Tokens of a request as the provider gets it: instructions, input and function tools. */
function requestTokens(request: ScriptedAgentsModel['requests'][number]): number {
  const messages = [
    { role: 'system' as const, content: request.systemInstructions ?? '' },
    ...toChatMessages(request.input as AgentInputItem[]),
  ];
  return counter.countMessages(messages) + counter.countTools(toToolDefinitions(request.tools as never));
}

async function converse(session: CtxkitSession, turns: number, toolCalls = 2) {
  const model = new ScriptedAgentsModel();
  const outputs: string[] = [];
  const agent = new Agent({
    name: 'travel',
    instructions: INSTRUCTIONS,
    model: session.wrapModel(model),
    tools: [lookupTool(outputs), ...(await session.tools())],
  });
  const users: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const user = `Turn ${turn}: find me a flight from SFO to city ${turn}, my reference is REF-${turn}.`;
    users.push(user);
    const script = Array.from({ length: toolCalls }, (_, call) => [
      functionCall(`call_${turn}_${call}`, 'lookup_flights', { from: 'SFO', to: `C${turn}` }),
    ]);
    model.script([...script, [assistantText(`Turn ${turn}: booked UA${turn}.`)]]);
    outputs.push(...script.map((_, call) => flights(turn, call)));
    const result = await run(agent, user, { session });
    expect(result.finalOutput).toBe(`Turn ${turn}: booked UA${turn}.`);
  }
  return { model, users };
}

describe('CtxkitSession', () => {
  test('records each model call of a run, with its cache reads and writes, as an llm-usage event', async () => {
    const session = new CtxkitSession({
      pluginId: 'std-sliding-window-strategy',
      config: { maxContextTokens: 8000 },
      sessionId: 'trip-usage',
    });
    try {
      await session.getAgent();
      const model = new ScriptedAgentsModel();
      // Responses API usage as recorded: cached and cache-written tokens inside input_tokens.
      const usages = [
        new Usage({
          requests: 1,
          input_tokens: 1800,
          output_tokens: 20,
          total_tokens: 1820,
          input_tokens_details: { cached_tokens: 0, cache_write_tokens: 1700 },
        }),
        new Usage({
          requests: 1,
          input_tokens: 2600,
          output_tokens: 12,
          total_tokens: 2612,
          input_tokens_details: { cached_tokens: 1700, cache_write_tokens: 800 },
        }),
      ];
      const answering = Object.assign(Object.create(model) as ScriptedAgentsModel, {
        async getResponse(request: ModelRequest): Promise<ModelResponse> {
          const response = await model.getResponse(request);
          return { ...response, usage: usages.shift()! };
        },
      });
      const outputs = ['UA1 09:00 $420'];
      const agent = new Agent({
        name: 'travel',
        instructions: INSTRUCTIONS,
        model: session.wrapModel(answering),
        tools: [lookupTool(outputs)],
      });
      model.script([
        [functionCall('call_1', 'lookup_flights', { from: 'SFO', to: 'JFK' })],
        [assistantText('Booked UA1.')],
      ]);
      const events: unknown[] = [];
      session.agent.events.on('llm-usage', (event) => events.push(event));
      const result = await run(agent, 'Find me a flight from SFO to JFK.', { session });
      const calls = session.recordUsage(result.runContext.usage);
      expect(calls).toEqual([
        { input_tokens: 100, cache_read_tokens: 0, cache_creation_tokens: 1700, output_tokens: 20, total_tokens: 1820 },
        {
          input_tokens: 100,
          cache_read_tokens: 1700,
          cache_creation_tokens: 800,
          output_tokens: 12,
          total_tokens: 2612,
        },
      ]);
      expect(events).toEqual(
        calls.map((usage) => ({
          agentId: session.agent.id,
          sessionId: 'trip-usage',
          strategyId: 'std-sliding-window-strategy',
          turn: 1,
          usage,
          model: session.agent.model,
        })),
      );
    } finally {
      await session.dispose();
    }
  });

  test(
    "every model call of every run is composed within the budget, valid, with the run's user message; the store " +
      'keeps every item',
    async () => {
      const session = new CtxkitSession({
        pluginId: 'std-summarization-strategy',
        config: { maxContextTokens: 3000, reserveOutputTokens: 0, summarizer: 'offline', threshold: 2, batchTurns: 1 },
        sessionId: 'trip-1',
        waitForIdle: true,
      });
      try {
        const { model, users } = await converse(session, 6);
        expect(model.requests).toHaveLength(18);
        model.requests.forEach((request, index) => {
          expect(requestTokens(request)).toBeLessThanOrEqual(3000);
          expect(findPayloadProblems(toChatMessages(request.input as AgentInputItem[]))).toEqual([]);
          const user = users[Math.floor(index / 3)]!;
          expect(
            toChatMessages(request.input as AgentInputItem[]).some(
              (message) => message.role === 'user' && contentText(message.content) === user,
            ),
          ).toBe(true);
        });
        const stored = await session.getItems();
        expect(stored).toHaveLength(6 * (1 + 2 * 2 + 1));
        expect(stored.filter((item) => (item as { role?: string }).role === 'system')).toEqual([]);
        const whole = counter.countMessages(toChatMessages(stored));
        expect(whole).toBeGreaterThan(3000);
        expect(session.lastPayload!.stats.reductions.some((reduction) => reduction.action === 'summarized')).toBe(true);
      } finally {
        await session.dispose();
      }
    },
  );

  test(
    'decorates a real Session: getItems is exactly its items (with a limit too), while every request is ' + 'composed',
    async () => {
      const memory = new MemorySession({ sessionId: 'trip-memory' });
      const session = new CtxkitSession({
        pluginId: 'std-summarization-strategy',
        config: { maxContextTokens: 3000, reserveOutputTokens: 0, summarizer: 'offline', threshold: 2, batchTurns: 1 },
        session: memory,
        waitForIdle: true,
      });
      try {
        const { model } = await converse(session, 4, 1);
        expect(await session.getSessionId()).toBe('trip-memory');
        const stored = await memory.getItems();
        expect(stored).toHaveLength(4 * (1 + 2 + 1));
        expect(await session.getItems()).toEqual(stored);
        expect(await session.getItems(3)).toEqual(await memory.getItems(3));
        expect(await session.getItems(0)).toEqual(await memory.getItems(0));
        // The store holds no summary; the last request carries one (a user message item, a quoted record).
        expect(stored.some((item) => JSON.stringify(item).includes('<conversation_summary'))).toBe(false);
        const last = model.requests.at(-1)!.input as AgentInputItem[];
        expect(last.length).toBeLessThan(stored.length);
        expect(contentText(toChatMessages([last[0]!])[0]!.content)).toContain('<conversation_summary');
        expect(last[0]).toMatchObject({ role: 'user' });
      } finally {
        await session.dispose();
      }
    },
  );

  test(
    'the first request of a run in a new process is composed like every other: a trimmed output offers the ' +
      'expand tool at once',
    async () => {
      const memory = new MemorySession({ sessionId: 'trip-restart' });
      const options = {
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 4000, reserveOutputTokens: 0 },
        session: memory,
        waitForIdle: true,
      };
      const first = new CtxkitSession(options);
      try {
        await converse(first, 3, 4);
      } finally {
        await first.dispose();
      }
      // Another session object over the same stored items, as after a restart: nothing composed yet.
      const again = new CtxkitSession(options);
      try {
        const model = new ScriptedAgentsModel();
        const agent = new Agent({
          name: 'travel',
          instructions: INSTRUCTIONS,
          model: again.wrapModel(model),
          tools: [lookupTool([]), ...(await again.tools())],
        });
        model.script([[assistantText('Your flights are above.')]]);
        await run(agent, 'Which flights did you find?', { session: again });
        const [request] = model.requests;
        const names = request!.tools.map((one) => (one as { name?: string }).name);
        expect(again.lastPayload!.tools.map((definition) => definition.function.name)).toContain('tool_output_cache');
        expect(names).toContain('tool_output_cache');
        expect(names).not.toContain('compact');
        expect(requestTokens(request!)).toBeLessThanOrEqual(4000);
        expect(JSON.stringify(request!.input)).toContain('ref=');
      } finally {
        await again.dispose();
      }
    },
  );

  test(
    'a streamed run is composed the same way: every request within the budget, the stored session holds the run ' +
      'items once',
    async () => {
      const memory = new MemorySession({ sessionId: 'trip-stream' });
      const session = new CtxkitSession({
        pluginId: 'std-summarization-strategy',
        config: { maxContextTokens: 3000, reserveOutputTokens: 0, summarizer: 'offline', threshold: 2, batchTurns: 1 },
        session: memory,
        waitForIdle: true,
      });
      try {
        const model = new ScriptedAgentsModel();
        const outputs: string[] = [];
        const agent = new Agent({
          name: 'travel',
          instructions: INSTRUCTIONS,
          model: session.wrapModel(model),
          tools: [lookupTool(outputs)],
        });
        for (let turn = 1; turn <= 6; turn++) {
          model.script([
            [functionCall(`call_${turn}`, 'lookup_flights', { from: 'SFO', to: `C${turn}` })],
            [assistantText(`Turn ${turn}: booked.`)],
          ]);
          outputs.push(flights(turn, 0));
          const result = await run(agent, `Turn ${turn}: a flight to city ${turn}, please.`, { session, stream: true });
          await result.completed;
          expect(result.finalOutput).toBe(`Turn ${turn}: booked.`);
        }
        expect(model.requests).toHaveLength(12);
        for (const request of model.requests) {
          expect(requestTokens(request)).toBeLessThanOrEqual(3000);
          expect(findPayloadProblems(toChatMessages(request.input as AgentInputItem[]))).toEqual([]);
        }
        const stored = await memory.getItems();
        expect(stored).toHaveLength(6 * 4);
        expect(counter.countMessages(toChatMessages(stored))).toBeGreaterThan(3000);
        expect(session.lastPayload!.stats.reductions.length).toBeGreaterThan(0);
      } finally {
        await session.dispose();
      }
    },
  );

  test(
    'the history lives in the agent store: another session object of the same id sees it; popItem and ' +
      'clearSession change it',
    async () => {
      const runtime = await createContextRuntime();
      try {
        const agent = await runtime.loadAgent({
          id: 'travel-agent',
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-sliding-window-strategy',
            config: { maxContextTokens: 8000 },
          },
        });
        const first = new CtxkitSession({ agent, sessionId: 'shared' });
        const items: AgentInputItem[] = [{ role: 'user', content: 'hi' }, assistantText('hello') as AgentInputItem];
        await first.addItems(items);
        const second = new CtxkitSession({ agent, sessionId: 'shared' });
        expect(await second.getStoredItems()).toEqual(items);
        expect(await second.getItems()).toEqual(items);
        expect(await second.popItem()).toEqual(items[1]);
        expect(await second.getStoredItems()).toEqual([items[0]]);
        await second.clearSession();
        expect(await second.getItems()).toEqual([]);
        expect(await second.popItem()).toBeUndefined();
        expect(await new CtxkitSession({ agent, sessionId: 'shared' }).getItems()).toEqual([]);
      } finally {
        await runtime.dispose();
      }
    },
  );

  test('a store write that fails leaves the history as it was', async () => {
    class FailingStore extends MemoryContextStore {
      fail = false;
      override async set(key: StoreKey, value: unknown): Promise<void> {
        if (this.fail) throw new StoreError('memory', 'set', key.name, 'injected fault');
        return super.set(key, value);
      }
    }
    const store = new FailingStore();
    const session = new CtxkitSession({ pluginId: 'std-sliding-window-strategy', runtimeOptions: { store } });
    try {
      await session.addItems([{ role: 'user', content: 'one' }]);
      store.fail = true;
      await expect(session.addItems([{ role: 'user', content: 'two' }])).rejects.toThrow('injected fault');
      expect(await session.getItems()).toEqual([{ role: 'user', content: 'one' }]);
      await expect(session.addItems([{ role: 'robot', content: 'x' } as never])).rejects.toMatchObject({
        code: 'CTXKIT_HISTORY_INVALID',
      });
    } finally {
      await session.dispose();
    }
  });

  test(
    'options that name no strategy, two, or an unknown one are refused with typed errors; the constructor checks ' +
      'at once',
    async () => {
      expect(() => new CtxkitSession({})).toThrow(AgentSourceError);
      expect(() => new CtxkitSession({ pluginId: 'std-sliding-window-strategy', manifest: {} })).toThrow(
        /CtxkitSession: manifest and pluginId given together/,
      );
      expect(() => new CtxkitSession({ manifest: { id: 'a' }, config: {} })).toThrow(
        /config and agentId go with pluginId only/,
      );
      await expect(new CtxkitSession({ pluginId: 'no-such-strategy' }).getItems()).rejects.toMatchObject({
        code: 'CTXKIT_PLUGIN_NOT_FOUND',
      });
      await expect(
        new CtxkitSession({ pluginId: 'std-sliding-window-strategy', sessionId: 'x'.repeat(300) }).getItems(),
      ).rejects.toMatchObject({ code: 'CTXKIT_STORE_KEY_INVALID' });
      expect(() => new CtxkitSession({ pluginId: 'std-sliding-window-strategy' }).agent).toThrow(
        /the session is not open yet/,
      );
    },
  );

  test(
    'createCtxkitSession, deprecated, returns the session opened, and refuses what the constructor ' + 'refuses',
    async () => {
      await expect(createCtxkitSession({})).rejects.toBeInstanceOf(AgentSourceError);
      await expect(createCtxkitSession({ pluginId: 'no-such-strategy' })).rejects.toMatchObject({
        code: 'CTXKIT_PLUGIN_NOT_FOUND',
      });
      const session = await createCtxkitSession({ pluginId: 'std-sliding-window-strategy', sessionId: 'opened' });
      try {
        expect(session.agent.strategyId).toBe('std-sliding-window-strategy');
        expect(session.contributedTools()).toEqual([]);
        expect(await session.getStoredItems()).toEqual([]);
      } finally {
        await session.dispose();
      }
    },
  );
});
