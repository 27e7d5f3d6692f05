import { createContextRuntime, createTokenCounter, MemoryContextStore, StoreError, type ContextRuntime, type StoreKey } from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { Agent, run, setTracingDisabled, tool, Usage, type AgentInputItem, type ModelRequest, type ModelResponse } from '@openai/agents';
import { createCtxkitSession, CtxkitSession, AgentSourceError, SessionInputMismatchError, toChatMessages, toToolDefinitions } from './index';
import { assistantText, functionCall, ScriptedAgentsModel } from './testing/scripted-agents-model';

setTracingDisabled(true);

const counter = createTokenCounter({ model: 'gpt-4o' });
const INSTRUCTIONS = 'You are a travel agent. Look flights up before you answer.';

function lookupTool(outputs: string[]) {
  return tool({
    name: 'lookup_flights',
    description: 'Flights between two airports on a date.',
    parameters: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'], additionalProperties: false },
    strict: true,
    execute: async () => outputs.shift() ?? 'no flights',
  });
}

function flights(turn: number, call: number): string {
  return Array.from({ length: 40 }, (_, row) => `flight UA${turn}${call}${row} departs ${String(row % 24).padStart(2, '0')}:00 seats ${row * 3} price ${100 + row}`).join('\n');
}

/** Tokens of a request as the provider gets it: instructions, input and function tools. */
function requestTokens(request: ScriptedAgentsModel['requests'][number]): number {
  const messages = [{ role: 'system' as const, content: request.systemInstructions ?? '' }, ...toChatMessages(request.input as AgentInputItem[])];
  return counter.countMessages(messages) + counter.countTools(toToolDefinitions(request.tools as never));
}

async function converse(session: CtxkitSession, turns: number, toolCalls = 2) {
  const model = new ScriptedAgentsModel();
  const outputs: string[] = [];
  const agent = new Agent({ name: 'travel', instructions: INSTRUCTIONS, model, tools: [lookupTool(outputs)] });
  const users: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const user = `Turn ${turn}: find me a flight from SFO to city ${turn}, my reference is REF-${turn}.`;
    users.push(user);
    const script = Array.from({ length: toolCalls }, (_, call) => [functionCall(`call_${turn}_${call}`, 'lookup_flights', { from: 'SFO', to: `C${turn}` })]);
    model.script([...script, [assistantText(`Turn ${turn}: booked UA${turn}.`)]]);
    outputs.push(...script.map((_, call) => flights(turn, call)));
    const result = await run(agent, user, { session, callModelInputFilter: session.callModelInputFilter });
    expect(result.finalOutput).toBe(`Turn ${turn}: booked UA${turn}.`);
  }
  return { model, users };
}

describe('CtxkitSession', () => {
  test("records each model call of a run, with its cache reads and writes, as an llm-usage event", async () => {
    const session = await createCtxkitSession({ pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 8000 }, sessionId: 'trip-usage' });
    try {
      const model = new ScriptedAgentsModel();
      // Responses API usage as recorded: cached and cache-written tokens inside input_tokens.
      const usages = [
        new Usage({ requests: 1, input_tokens: 1800, output_tokens: 20, total_tokens: 1820, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 1700 } }),
        new Usage({ requests: 1, input_tokens: 2600, output_tokens: 12, total_tokens: 2612, input_tokens_details: { cached_tokens: 1700, cache_write_tokens: 800 } }),
      ];
      const answering = Object.assign(Object.create(model) as ScriptedAgentsModel, {
        async getResponse(request: ModelRequest): Promise<ModelResponse> {
          const response = await model.getResponse(request);
          return { ...response, usage: usages.shift()! };
        },
      });
      const outputs = ['UA1 09:00 $420'];
      const agent = new Agent({ name: 'travel', instructions: INSTRUCTIONS, model: answering, tools: [lookupTool(outputs)] });
      model.script([[functionCall('call_1', 'lookup_flights', { from: 'SFO', to: 'JFK' })], [assistantText('Booked UA1.')]]);
      const events: unknown[] = [];
      session.agent.events.on('llm-usage', (event) => events.push(event));
      const result = await run(agent, 'Find me a flight from SFO to JFK.', { session, callModelInputFilter: session.callModelInputFilter });
      const calls = session.recordUsage(result.runContext.usage);
      expect(calls).toEqual([
        { input_tokens: 100, cache_read_tokens: 0, cache_creation_tokens: 1700, output_tokens: 20, total_tokens: 1820 },
        { input_tokens: 100, cache_read_tokens: 1700, cache_creation_tokens: 800, output_tokens: 12, total_tokens: 2612 },
      ]);
      expect(events).toEqual(calls.map((usage) => ({ agentId: session.agent.id, sessionId: 'trip-usage', strategyId: 'std-sliding-window-strategy', turn: 1, usage, model: session.agent.model })));
    } finally {
      await session.dispose();
    }
  });

  test('every model call of every run is composed within the budget, valid, with the run\'s user message; the store keeps every item', async () => {
    const session = await createCtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 3000, reserveOutputTokens: 0, summarizer: 'offline', threshold: 2, batchTurns: 1 }, sessionId: 'trip-1', waitForIdle: true });
    try {
      const { model, users } = await converse(session, 6);
      expect(model.requests).toHaveLength(18);
      model.requests.forEach((request, index) => {
        expect(requestTokens(request)).toBeLessThanOrEqual(3000);
        expect(findPayloadProblems(toChatMessages(request.input as AgentInputItem[]))).toEqual([]);
        const user = users[Math.floor(index / 3)]!;
        expect(toChatMessages(request.input as AgentInputItem[]).some((message) => message.role === 'user' && contentText(message.content) === user)).toBe(true);
      });
      const stored = await session.getStoredItems();
      expect(stored).toHaveLength(6 * (1 + 2 * 2 + 1));
      expect(stored.filter((item) => (item as { role?: string }).role === 'system')).toEqual([]);
      const whole = counter.countMessages(toChatMessages(stored));
      expect(whole).toBeGreaterThan(3000);
      expect(session.lastPayload!.stats.reductions.some((reduction) => reduction.action === 'summarized')).toBe(true);
    } finally {
      await session.dispose();
    }
  });

  test('getItems returns the composed history (a summary and the newest turns) and honours a limit', async () => {
    const session = await createCtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 3000, reserveOutputTokens: 0, summarizer: 'offline', threshold: 2, batchTurns: 1 }, instructions: INSTRUCTIONS, waitForIdle: true });
    try {
      await converse(session, 4, 1);
      const stored = await session.getStoredItems();
      const composed = await session.getItems();
      expect(composed.length).toBeLessThan(stored.length);
      // The summary, a user message item (a quoted record, not instructions).
      expect(composed[0]).toMatchObject({ role: 'user' });
      expect(contentText(toChatMessages([composed[0]!])[0]!.content)).toContain('<conversation_summary');
      expect(counter.countMessages([{ role: 'system', content: INSTRUCTIONS }, ...toChatMessages(composed)])).toBeLessThanOrEqual(3000);
      expect(composed.at(-1)).toEqual(stored.at(-1));
      const last = await session.getItems(3);
      expect(last.length).toBeLessThanOrEqual(3);
      expect(findPayloadProblems(toChatMessages(last)).filter((problem) => problem.problem !== 'no-user-message')).toEqual([]);
      expect(await session.getItems(0)).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  test('the history lives in the agent store: another session object of the same id sees it; popItem and clearSession change it', async () => {
    const runtime = await createContextRuntime();
    try {
      const agent = await runtime.loadAgent({ id: 'travel-agent', contextStrategy: { type: 'plugin', pluginId: 'std-sliding-window-strategy', config: { maxContextTokens: 8000 } } });
      const first = new CtxkitSession(agent, { sessionId: 'shared' });
      const items: AgentInputItem[] = [{ role: 'user', content: 'hi' }, assistantText('hello') as AgentInputItem];
      await first.addItems(items);
      const second = new CtxkitSession(agent, { sessionId: 'shared' });
      expect(await second.getStoredItems()).toEqual(items);
      expect(await second.getItems()).toEqual(items);
      expect(await second.popItem()).toEqual(items[1]);
      expect(await second.getStoredItems()).toEqual([items[0]]);
      await second.clearSession();
      expect(await second.getItems()).toEqual([]);
      expect(await second.popItem()).toBeUndefined();
      expect(await new CtxkitSession(agent, { sessionId: 'shared' }).getStoredItems()).toEqual([]);
    } finally {
      await runtime.dispose();
    }
  });

  test('a store write that fails leaves the history as it was', async () => {
    class FailingStore extends MemoryContextStore {
      fail = false;
      override async set(key: StoreKey, value: unknown): Promise<void> {
        if (this.fail) throw new StoreError('memory', 'set', key.name, 'injected fault');
        return super.set(key, value);
      }
    }
    const store = new FailingStore();
    const session = await createCtxkitSession({ pluginId: 'std-sliding-window-strategy', runtimeOptions: { store } });
    try {
      await session.addItems([{ role: 'user', content: 'one' }]);
      store.fail = true;
      await expect(session.addItems([{ role: 'user', content: 'two' }])).rejects.toThrow('injected fault');
      expect(await session.getStoredItems()).toEqual([{ role: 'user', content: 'one' }]);
      await expect(session.addItems([{ role: 'robot', content: 'x' } as never])).rejects.toMatchObject({ code: 'CTXKIT_HISTORY_INVALID' });
    } finally {
      await session.dispose();
    }
  });

  test('options that name no strategy, two, or an unknown one are refused with typed errors', async () => {
    await expect(createCtxkitSession({})).rejects.toBeInstanceOf(AgentSourceError);
    await expect(createCtxkitSession({ pluginId: 'std-sliding-window-strategy', manifest: {} })).rejects.toThrow(/pluginId and manifest|manifest and pluginId/);
    await expect(createCtxkitSession({ manifest: { id: 'a' }, config: {} })).rejects.toThrow(/config and agentId go with pluginId only/);
    await expect(createCtxkitSession({ pluginId: 'no-such-strategy' })).rejects.toMatchObject({ code: 'CTXKIT_PLUGIN_NOT_FOUND' });
    await expect(createCtxkitSession({ pluginId: 'std-sliding-window-strategy', sessionId: 'x'.repeat(300) })).rejects.toMatchObject({ code: 'CTXKIT_STORE_KEY_INVALID' });
  });

  test('with the tool output cache, items the filter adds beyond what getItems returned (older turns, trimmed outputs) are not stored again when the SDK passes them back as new objects', async () => {
    const session = await createCtxkitSession({ pluginId: 'std-tool-output-cache-strategy', config: { maxContextTokens: 4000, reserveOutputTokens: 0 }, instructions: INSTRUCTIONS, waitForIdle: true });
    try {
      const model = new ScriptedAgentsModel();
      const outputs: string[] = [];
      const agent = new Agent({ name: 'travel', instructions: INSTRUCTIONS, model, tools: [lookupTool(outputs)] });
      // Five turns of four lookups each: the newest turn's outputs, whole, leave no room for the older turns.
      for (let turn = 1; turn <= 5; turn++) {
        model.script([...[0, 1, 2, 3].map((call) => [functionCall(`call_${turn}_${call}`, 'lookup_flights', { from: 'SFO', to: `C${turn}` })]), [assistantText(`Turn ${turn}: booked UA${turn}.`)]]);
        outputs.push(...[0, 1, 2, 3].map((call) => flights(turn, call)));
        await run(agent, `Turn ${turn}: find me a flight from SFO to city ${turn}.`, { session, callModelInputFilter: session.callModelInputFilter });
      }
      const stored = await session.getStoredItems();
      // A run, step by step as the Agents SDK takes it: the history, then the filter with the new user message.
      const history = await session.getItems();
      const user: AgentInputItem = { role: 'user', content: 'Turn 6: and back again?' };
      const filtered = await session.callModelInputFilter({ modelData: { input: [...history, user], instructions: INSTRUCTIONS }, agent, context: undefined } as never);
      // Older turns are back (their outputs no longer whole is what made room), the previous turn's outputs trimmed.
      const keys = new Set(history.map((item) => JSON.stringify(item)));
      const added = filtered.input.filter((item) => item !== user && !keys.has(JSON.stringify(item)));
      expect(added.some((item) => (item as { type?: string }).type === 'function_call')).toBe(true);
      expect(added.some((item) => (item as { type?: string }).type === 'function_call_result')).toBe(true);
      // The SDK hands the items it cannot match to addItems, as new objects, with the run's new items.
      const answer = assistantText('Turn 6: booked the return.') as AgentInputItem;
      await session.addItems([...structuredClone(added), structuredClone(user), answer]);
      expect(await session.getStoredItems()).toEqual([...stored, user, answer]);
      // A later run whose user message repeats an earlier one still stores it.
      const again: AgentInputItem = { role: 'user', content: 'Turn 6: and back again?' };
      await session.callModelInputFilter({ modelData: { input: [...(await session.getItems()), again], instructions: INSTRUCTIONS }, agent, context: undefined } as never);
      await session.addItems([structuredClone(again), answer]);
      expect(await session.getStoredItems()).toEqual([...stored, user, answer, again, answer]);
    } finally {
      await session.dispose();
    }
  });

  test('the filter refuses input that is not this session\'s history, and a run that never read the session', async () => {
    const session = await createCtxkitSession({ pluginId: 'std-sliding-window-strategy' });
    try {
      const model = new ScriptedAgentsModel();
      const agent = new Agent({ name: 'a', instructions: 'x', model });
      await expect(run(agent, 'hi', { callModelInputFilter: session.callModelInputFilter })).rejects.toBeInstanceOf(SessionInputMismatchError);
      await session.addItems([{ role: 'user', content: 'earlier' }, assistantText('ok') as AgentInputItem]);
      await expect(run(agent, 'hi', { session, sessionInputCallback: (history, added) => [...added, ...history], callModelInputFilter: session.callModelInputFilter })).rejects.toBeInstanceOf(SessionInputMismatchError);
    } finally {
      await session.dispose();
    }
  });
});
