import {
  BudgetExceededError,
  CapabilityUnsupportedError,
  type ChatMessage,
  createContextRuntime,
  CtxkitError,
  type LLMPayload,
  type ToolDefinition,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, loadConversations } from '@ctxkit/core/testing';

import { createStrategy } from './index';
import type { SlidingWindowConfig } from './sliding-window-config';

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Looks up an item',
      parameters: { type: 'object', properties: { item: { type: 'integer' } } },
    },
  },
];
let nextId = 0;

function turn(index: number, output = `item ${index}: ${'detail '.repeat(60)}`): ChatMessage[] {
  const id = `call_${++nextId}`;
  return [
    { role: 'user', content: `Where is item ${index}?` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"item":${index}}` } }],
    },
    { role: 'tool', tool_call_id: id, content: output },
    { role: 'assistant', content: `Item ${index} is in the warehouse.` },
  ];
}

function setup(config: Partial<SlidingWindowConfig> = {}) {
  const { context, events } = createConformanceContext(
    'session-1',
    { strategyId: 'std-sliding-window-strategy' },
    undefined,
  );
  const strategy = createStrategy(config, context);
  return { strategy, context, events };
}

describe('SlidingWindowStrategy', () => {
  describe('#composePayload', () => {
    it('keeps the system prompt, tools and the newest whole groups within the budget', async () => {
      // Plain recency: drop only what must go, oldest first.
      const { strategy, context } = setup({ maxContextTokens: 3000, cutBackRatio: 1 });
      const history = Array.from({ length: 40 }, (_, index) => turn(index)).flat();
      const payload = await strategy.composePayload('You are a warehouse assistant.', history, tools);
      const { available } = strategy.budget();
      expect(
        context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
      ).toBeLessThanOrEqual(available);
      expect(payload.messages[0]).toEqual({ role: 'system', content: 'You are a warehouse assistant.' });
      expect(payload.tools).toEqual(tools);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      expect(payload.messages[payload.messages.length - 1]).toBe(history[history.length - 1]);
      expect(payload.stats.dropped).toBeGreaterThan(0);
      expect(payload.stats.reductions[0]).toMatchObject({ action: 'dropped', from: 0 });
    });

    it('fills the stats completely', async () => {
      const { strategy, context } = setup({ maxContextTokens: 2000 });
      const history = Array.from({ length: 20 }, (_, index) => turn(index)).flat();
      const { stats, messages } = await strategy.composePayload(
        'System.',
        history,
        tools,
        'Warehouse opening hours: 8-18.',
      );
      expect(stats).toMatchObject({
        strategyId: 'std-sliding-window-strategy',
        model: 'gpt-4o',
        counter: context.counter.meta(),
        messages: { input: 80, output: messages.length },
      });
      expect(
        stats.sections.system +
          stats.sections.tools +
          stats.sections.dynamic +
          stats.sections.memory +
          stats.sections.history,
      ).toBe(stats.output_tokens);
      expect(stats.sections.dynamic).toBeGreaterThan(0);
      expect(stats.budget.used).toBe(stats.output_tokens);
      expect(stats.input_tokens).toBeGreaterThan(stats.output_tokens);
      expect(stats.compress_ratio).toBeCloseTo(stats.output_tokens / stats.input_tokens, 12);
      expect(['ok', 'warn', 'compact', 'critical']).toContain(stats.usageLevel);
      expect(messages[1]).toEqual({ role: 'system', content: 'Warehouse opening hours: 8-18.' });
    });

    it('takes the budget from the model registry when maxContextTokens is null', () => {
      const { strategy } = setup({ model: 'gpt-4' });
      expect(strategy.budget()).toMatchObject({ contextWindow: 8192, maxContextTokens: 8192 });
    });

    it('rejects an unknown model without maxContextTokens with a typed error', async () => {
      const { strategy } = setup({ model: 'no-such-model' });
      await expect(strategy.composePayload('sys', turn(1), [])).rejects.toMatchObject({ code: 'CTXKIT_UNKNOWN_MODEL' });
    });

    it('rejects with BudgetExceededError when system + tools alone exceed the budget', async () => {
      const { strategy } = setup({ maxContextTokens: 200 });
      const error = await strategy.composePayload('x '.repeat(500), turn(1), tools).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BudgetExceededError);
      expect(CtxkitError.isInstance(error) && error.code).toBe('CTXKIT_BUDGET_EXCEEDED');
    });

    it('truncates an over-budget tool output of the current turn head + tail and reports it', async () => {
      const { strategy, events } = setup({ maxContextTokens: 4000 });
      const huge = Array.from({ length: 50_000 }, (_, index) => `${index}: make[2]: Entering directory`).join('\n');
      const history = [...turn(1), ...turn(2, huge).slice(0, 3)];
      const payload = await strategy.composePayload('sys', history, tools);
      const last = payload.messages[payload.messages.length - 1]!;
      expect(last.role).toBe('tool');
      expect(last.content).toMatch(/^0: make\[2\][\s\S]*elided[\s\S]*49999: make\[2\]: Entering directory$/);
      expect(payload.stats.trimmed).toBe(1);
      expect(events.map((event) => event.name)).toContain('tool-output-trim');
      expect(history[history.length - 1]!.content).toBe(huge);
    });

    it('never sends a dangling finish call or an orphan result, and reports both as dropped', async () => {
      const { strategy } = setup({ maxContextTokens: 8000 });
      const history: ChatMessage[] = [
        { role: 'tool', tool_call_id: 'orphan', content: 'stray' },
        ...turn(1),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'fin', type: 'function', function: { name: 'finish', arguments: '{}' } }],
        },
      ];
      const payload = await strategy.composePayload('sys', history, tools);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      expect(
        payload.stats.reductions.filter((record) => record.action === 'dropped').map((record) => record.from),
      ).toEqual([0, 5]);
    });

    it('emits history-trim, payload-composed and usage-level-change with the routing fields', async () => {
      // Dropping only what must go fills the budget past the usage level's threshold.
      const { strategy, events } = setup({ maxContextTokens: 1500, cutBackRatio: 1 });
      const history = Array.from({ length: 30 }, (_, index) => turn(index)).flat();
      await strategy.composePayload('sys', history, tools);
      const names = events.map((event) => event.name);
      expect(names).toEqual(expect.arrayContaining(['history-trim', 'payload-composed', 'usage-level-change']));
      for (const event of events)
        expect(event.payload).toMatchObject({
          agentId: 'conformance-agent',
          sessionId: 'session-1',
          strategyId: 'std-sliding-window-strategy',
          turn: 30,
        });
    });

    it('sends the same payload again for a repeat call with nothing new, all of it a repeated prefix', async () => {
      const { strategy } = setup({ maxContextTokens: 3000, cutBackRatio: 0.5 });
      const history = Array.from({ length: 30 }, (_, index) => turn(index)).flat();
      const first = await strategy.composePayload('sys', history, tools);
      const again = await strategy.composePayload('sys', history, tools);
      expect(again.messages).toEqual(first.messages);
      expect(again.messages).not.toBe(first.messages);
      expect(again.stats.reductions).toEqual(first.stats.reductions);
      expect(again.stats.repeatedPrefixTokens).toBe(again.stats.output_tokens);
    });

    it(
      'keeps a 10,000-message history with tool calls within an 8,000-token budget, newest user message included, ' +
        'input unchanged',
      async () => {
        const { strategy, context } = setup({ maxContextTokens: 8000 });
        const history = Array.from({ length: 2500 }, (_, index) => turn(index)).flat();
        history.push({ role: 'user', content: 'And the last one?' });
        const snapshot = JSON.stringify(history);
        const payload = await strategy.composePayload('sys', history, tools);
        expect(
          context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
        ).toBeLessThanOrEqual(8000 - strategy.budget().reserveOutputTokens);
        expect(findPayloadProblems(payload.messages)).toEqual([]);
        expect(payload.messages[payload.messages.length - 1]).toEqual({ role: 'user', content: 'And the last one?' });
        expect(JSON.stringify(history)).toBe(snapshot);
      },
    );

    it('composes valid payloads for every turn of a real tau-bench conversation', async () => {
      const record = loadConversations('tau-bench-airline')[0]!;
      const { strategy, context } = setup({ maxContextTokens: 4000 });
      const system = record.messages[0]!.content as string;
      const history = record.messages.slice(1) as ChatMessage[];
      for (let end = 1; end <= history.length; end++) {
        if (history[end - 1]!.role !== 'user') continue;
        const payload = await strategy.composePayload(system, history.slice(0, end), []);
        expect(context.counter.countMessages(payload.messages)).toBeLessThanOrEqual(strategy.budget().available);
        expect(findPayloadProblems(payload.messages)).toEqual([]);
      }
    });
  });

  describe('#preview', () => {
    /** Indexes of the history messages a payload does not carry as they are. */
    const absent = (payload: LLMPayload, history: ChatMessage[]) => {
      const sent = new Set<unknown>(payload.messages);
      return history.flatMap((message, index) => (sent.has(message) ? [] : [index]));
    };

    it(
      'names the messages the next payload leaves out and its tokens, emits nothing and leaves the next payload as ' +
        'it would have been',
      async () => {
        const previewing = setup({ maxContextTokens: 3000, cutBackRatio: 0.6, keepFirstShare: 0 });
        const plain = setup({ maxContextTokens: 3000, cutBackRatio: 0.6, keepFirstShare: 0 });
        let history = Array.from({ length: 30 }, (_, index) => turn(index)).flat();
        // A cut back holds the window's start: the preview must not move it.
        await previewing.strategy.composePayload('sys', history, tools);
        await plain.strategy.composePayload('sys', history, tools);
        for (const more of [31, 32, 45]) {
          history = [
            ...history,
            ...Array.from({ length: more - history.length / 4 }, (_, index) => turn(history.length / 4 + index)).flat(),
          ];
          const emitted = previewing.events.length;
          const preview = await previewing.strategy.preview('sys', history, tools);
          expect(previewing.events.length).toBe(emitted);
          const payload = await previewing.strategy.composePayload('sys', history, tools);
          expect(JSON.stringify(payload.messages)).toBe(
            JSON.stringify((await plain.strategy.composePayload('sys', history, tools)).messages),
          );
          expect(preview.dropped.map((item) => item.index)).toEqual(absent(payload, history));
          expect(preview.dropped.length).toBeGreaterThan(0);
          expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
          expect(preview.notes).toContain(
            `messages 0–${preview.dropped.length - 1} left out (dropped, recoverable from the history): older than ` +
              `the window: did not fit the budget`,
          );
          expect([preview.folded, preview.compacted, preview.trimmed]).toEqual([[], [], []]);
        }
      },
    );

    it('names a tool output of the current turn it would cut', async () => {
      const { strategy } = setup({ maxContextTokens: 4000, cutBackRatio: 1 });
      const history = [...turn(1), ...turn(2, 'output line\n'.repeat(20_000)).slice(0, 3)];
      const preview = await strategy.preview('sys', history, tools);
      expect(preview.trimmed.map((item) => [item.index, item.role])).toEqual([[6, 'tool']]);
      // The older turn makes room for the cut one.
      expect(preview.dropped.map((item) => item.index)).toEqual([0, 1, 2, 3]);
    });

    it('keeps no epochs, and a session refuses undo with a typed error', async () => {
      const { strategy } = setup({ maxContextTokens: 3000 });
      expect(await strategy.epochs()).toEqual([]);
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy(
        {
          id: 'std-sliding-window-strategy',
          name: 'Sliding window',
          version: '1.0.0',
          configSchema: { type: 'object' },
        },
        createStrategy,
      );
      const agent = await runtime.loadAgent({
        id: 'agent',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-sliding-window-strategy',
          config: { maxContextTokens: 3000 },
        },
      });
      const session = agent.forSession('chat-1');
      expect(await session.epochs()).toEqual([]);
      expect((await session.preview('sys', turn(1), tools)).dropped).toEqual([]);
      await expect(session.undo('e1')).rejects.toBeInstanceOf(CapabilityUnsupportedError);
      await runtime.dispose();
    });
  });

  describe('#dispose', () => {
    it('is safe to call more than once and rejects later calls with a typed error', async () => {
      const { strategy } = setup({ maxContextTokens: 3000 });
      strategy.dispose();
      strategy.dispose();
      await expect(strategy.composePayload('sys', turn(1), [])).rejects.toMatchObject({ code: 'CTXKIT_DISPOSED' });
    });
  });

  it('exports createStrategy as the plugin factory', async () => {
    const { context } = createConformanceContext('s', undefined, undefined);
    const manager = await createStrategy({ maxContextTokens: 2000 }, context);
    const payload = await manager.composePayload('sys', turn(1), []);
    expect(payload.messages.length).toBe(5);
  });
});
