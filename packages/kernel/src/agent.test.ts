import 'reflect-metadata';

import {
  type AssistantMessage,
  CapabilityUnsupportedError,
  type ChatMessage,
  type CompactionCheckpoint,
  type ContributedTool,
  CtxkitEventBus,
  type CtxkitEventPayloads,
  EpochNotFoundError,
  ErrorCodes,
  IContextManager,
  IEventBus,
  ILLMClient,
  type LLMPayload,
  type PayloadStats,
  ProviderPayloadError,
  type ReductionEpoch,
  type TokenUsage,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { container as rootContainer } from 'tsyringe';

import { Agent } from './agent';
import type { AgentOptions } from './agent-options';
import { IAgentOptions, IToolRegistry } from './injection-tokens';
import type { AgentTool } from './tools/agent-tool';
import { ToolRegistry } from './tools/tool-registry';

/** A pass-through strategy that records what it was given and can compact on demand. */
class RecordingManager implements IContextManager {
  readonly composed: Array<{
    systemPrompt: string;
    history: ChatMessage[];
    tools: ToolDefinition[];
    ragContext: string | undefined;
  }> = [];
  readonly completed: ChatMessage[][] = [];
  readonly checkpoints: Array<{ checkpoint: CompactionCheckpoint; usage: TokenUsage | undefined; length: number }> = [];
  compactAt: CompactionCheckpoint | undefined;
  contributed: ContributedTool[] = [];
  available = 10_000;
  truncatesToolOutputs = false;

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
  ): Promise<LLMPayload> {
    this.composed.push({ systemPrompt, history: structuredClone(history), tools: structuredClone(tools), ragContext });
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt }, ...structuredClone(history)];
    return { messages, tools, stats: stats(this.available, messages.length) };
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.completed.push(structuredClone(newHistory));
  }

  contributedTools(): ContributedTool[] {
    return this.contributed;
  }

  async checkCompaction(checkpoint: CompactionCheckpoint, history: readonly ChatMessage[], usage?: TokenUsage) {
    this.checkpoints.push({ checkpoint, usage, length: history.length });
    if (checkpoint !== this.compactAt) return { compacted: false };
    this.compactAt = undefined;
    // retain + summary + what follows the last user message, trailing tool_calls stripped.
    const lastUser = history.map((m) => m.role).lastIndexOf('user');
    let tail = history.slice(lastUser);
    const last = tail[tail.length - 1];
    if (last?.role === 'assistant' && last.tool_calls) tail = tail.slice(0, -1);
    return {
      compacted: true,
      messages: [
        { role: 'user', content: '<retain>ids</retain>' } as ChatMessage,
        { role: 'user', content: 'summary of earlier work' } as ChatMessage,
        ...tail,
      ],
    };
  }
}

/**
 * A recording strategy that records epochs and undoes them as told: `undoes` maps an epoch id to what its undo gives
 * back.
 */
class UndoableManager extends RecordingManager {
  readonly recorded: ReductionEpoch[] = [
    { id: 'e1', kind: 'compaction', at: 0, turn: 1, description: 'compacted messages 0–3 into a summary' },
  ];
  readonly undoes = new Map<string, ChatMessage[] | undefined>();
  readonly undone: string[] = [];

  async epochs(): Promise<ReductionEpoch[]> {
    return this.recorded.slice();
  }

  async undo(epochId: string): Promise<UndoResult> {
    const undone = this.recorded.find((epoch) => epoch.id === epochId);
    if (!undone || !this.undoes.has(epochId))
      throw new EpochNotFoundError(
        'default',
        epochId,
        this.recorded.map((epoch) => epoch.id),
      );
    this.undone.push(epochId);
    const history = this.undoes.get(epochId);
    return history ? { undone, alsoUndone: [], history } : { undone, alsoUndone: [] };
  }
}

function stats(available: number, used: number): PayloadStats {
  return {
    strategyId: 'recording',
    model: 'gpt-4o',
    input_tokens: used,
    output_tokens: used,
    compress_ratio: 1,
    budget: {
      contextWindow: available,
      maxContextTokens: available,
      reserveOutputTokens: 0,
      safetyMarginTokens: 0,
      available,
      used,
      remaining: available - used,
    },
    sections: { system: 0, tools: 0, dynamic: 0, memory: 0, history: used },
    messages: { input: used, output: used },
    reductions: [],
    dropped: 0,
    trimmed: 0,
    summarized: 0,
    compacted: 0,
    usageLevel: 'ok',
    counter: { model: 'gpt-4o', encoding: null, uses_tiktoken: false, strategy: 'heuristic', backend: 'heuristic' },
  };
}

const call = (id: string, name: string, args: unknown = {}) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});
const tool = (name: string, execute: AgentTool['execute']): AgentTool => ({
  definition: { type: 'function', function: { name, parameters: { type: 'object' } } },
  execute,
});

function build(
  script: ConstructorParameters<typeof ScriptedLLMClient>[0],
  tools: AgentTool[] = [],
  options: Partial<AgentOptions> = {},
  repeatLast = false,
  manager = new RecordingManager(),
) {
  const llm = new ScriptedLLMClient(script, { repeatLast });
  const events = new CtxkitEventBus();
  const child = rootContainer.createChildContainer();
  child.register(IContextManager, { useValue: manager });
  child.register(ILLMClient, { useValue: llm });
  child.register(IEventBus, { useValue: events });
  child.register(IToolRegistry, { useValue: new ToolRegistry(tools) });
  child.register(IAgentOptions, {
    useValue: { agentId: 'support', strategyId: 'recording', systemPrompt: 'You help.', ...options },
  });
  const agent = child.resolve(Agent);
  const seen: Array<{ name: string; payload: unknown }> = [];
  for (const name of ['llm-usage', 'tool-error', 'agent-run-end'] as const)
    events.on(name, (payload) => seen.push({ name, payload }));
  return { agent, manager, llm, events, seen };
}

describe('Agent', () => {
  describe('#constructor', () => {
    it('is resolved from a container with every dependency injected', () => {
      const { agent } = build(['hi']);
      expect(agent).toBeInstanceOf(Agent);
      expect(agent.id).toBe('support');
    });

    it(
      'opens sessions one way: contextManagerFor without a container manager, else the container manager for the ' +
        'default session alone',
      async () => {
        const routed = new RecordingManager();
        const child = rootContainer.createChildContainer();
        child.register(ILLMClient, { useValue: new ScriptedLLMClient(['a1', 'a2']) });
        child.register(IEventBus, { useValue: new CtxkitEventBus() });
        child.register(IToolRegistry, { useValue: new ToolRegistry([]) });
        child.register(IAgentOptions, {
          useValue: { agentId: 'support', strategyId: 'recording', contextManagerFor: () => routed },
        });
        const agent = child.resolve(Agent);
        await agent.run('first');
        await agent.run('second', { sessionId: 'ticket-7' });
        expect(new Set(routed.composed.map((call) => call.history[0]!.content))).toEqual(new Set(['first', 'second']));

        const { agent: injected, manager } = build(['a1']);
        await injected.run('first');
        expect(manager.composed).not.toHaveLength(0);
        await expect(injected.run('other', { sessionId: 'ticket-7' })).rejects.toMatchObject({
          code: ErrorCodes.STRATEGY_ERROR,
          message: expect.stringContaining('"ticket-7"'),
        });
      },
    );
  });

  describe('#run', () => {
    it('answers a plain question in one step and reports the turn complete', async () => {
      const { agent, manager, llm, seen } = build([{ reply: 'Hello!', usage: { input_tokens: 12, output_tokens: 3 } }]);
      const result = await agent.run('Hi there');
      expect(result.finalText).toBe('Hello!');
      expect(result.steps).toBe(1);
      expect(result.stopReason).toBe('final-answer');
      expect(result.messages).toEqual([
        { role: 'user', content: 'Hi there' },
        { role: 'assistant', content: 'Hello!' },
      ]);
      expect(result.usage.total_tokens).toBe(15);
      expect(result.payloads).toHaveLength(1);
      expect(manager.composed[0]!.systemPrompt).toBe('You help.');
      expect(manager.completed).toEqual([result.messages]);
      expect(llm.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'You help.' });
      expect(llm.requests[0]!.tools).toBeNull();
      expect(seen.map((e) => e.name)).toEqual(['llm-usage', 'agent-run-end']);
      expect(seen[1]!.payload).toMatchObject({
        agentId: 'support',
        sessionId: 'default',
        strategyId: 'recording',
        turn: 1,
        steps: 1,
        stopReason: 'final-answer',
      });
    });

    it('runs tool calls, feeds results back and continues until a final answer', async () => {
      const lookups: unknown[] = [];
      const { agent, llm } = build(
        [
          { content: null, tool_calls: [call('c1', 'get_user_details', { user_id: 'mia_li_3668' })] },
          'Your membership is gold.',
        ],
        [
          tool('get_user_details', (args) => {
            lookups.push(args);
            return { membership: 'gold' };
          }),
        ],
      );
      const result = await agent.run('What is my membership?');
      expect(lookups).toEqual([{ user_id: 'mia_li_3668' }]);
      expect(result.steps).toBe(2);
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(result.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '{"membership":"gold"}' });
      expect(result.toolCalls).toEqual([{ toolCallId: 'c1', toolName: 'get_user_details', ok: true }]);
      expect(llm.requests[1]!.messages.slice(-2).map((m) => m.role)).toEqual(['assistant', 'tool']);
      expect(llm.requests[0]!.tools?.map((t) => t.function.name)).toEqual(['get_user_details']);
    });

    it('turns a tool that throws into a tool result and a tool-error event, and goes on', async () => {
      const { agent, seen } = build(
        [{ content: null, tool_calls: [call('c1', 'book', { flight: 'HAT001' })] }, 'Sorry, booking failed.'],
        [
          tool('book', () => {
            throw new Error('seat map unavailable');
          }),
        ],
      );
      const result = await agent.run('Book it');
      expect(result.finalText).toBe('Sorry, booking failed.');
      expect(result.messages[2]).toEqual({
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Error: Tool "book" (call c1) failed: seat map unavailable',
      });
      expect(result.toolCalls[0]).toMatchObject({ ok: false, errorCode: ErrorCodes.TOOL_EXECUTION_FAILED });
      const event = seen.find((e) => e.name === 'tool-error')!.payload as CtxkitEventPayloads['tool-error'];
      expect(event).toMatchObject({
        toolName: 'book',
        toolCallId: 'c1',
        error: { code: ErrorCodes.TOOL_EXECUTION_FAILED },
      });
    });

    it('answers an unknown tool and unreadable arguments with errors the model can read', async () => {
      const { agent } = build(
        [{ content: null, tool_calls: [call('c1', 'teleport'), call('c2', 'echo', '{not json')] }, 'ok'],
        [tool('echo', (args) => args)],
      );
      const result = await agent.run('go');
      expect(result.messages[2]!.content).toMatch(
        /^Error: The model called unknown tool "teleport"\. Available: echo\./,
      );
      expect(result.messages[3]!.content).toMatch(/^Error: Tool "echo" \(call c2\) failed: .*JSON/);
      expect(result.toolCalls.map((c) => c.errorCode)).toEqual([
        ErrorCodes.TOOL_NOT_FOUND,
        ErrorCodes.TOOL_EXECUTION_FAILED,
      ]);
    });

    it('stops at maxSteps with a valid history ending on the tool results', async () => {
      const { agent, manager } = build(
        [{ content: null, tool_calls: [call('c', 'echo')] }],
        [tool('echo', () => 'again')],
        { maxSteps: 3 },
        true,
      );
      const result = await agent.run('loop forever');
      expect(result.steps).toBe(3);
      expect(result.stopReason).toBe('max-steps');
      expect(result.finalText).toBe('');
      expect(result.messages[result.messages.length - 1]!.role).toBe('tool');
      expect(manager.completed).toHaveLength(1);
    });

    it('defaults to 20 steps and honours a per-run bound', async () => {
      const { agent } = build(
        [{ content: null, tool_calls: [call('c', 'echo')] }],
        [tool('echo', () => 'x')],
        {},
        true,
      );
      expect((await agent.run('a')).steps).toBe(20);
      expect((await agent.run('b', { maxSteps: 2 })).steps).toBe(2);
    });

    it('registers the tools the strategy contributes beside the user tools', async () => {
      const { agent, manager, llm } = build(
        [{ content: null, tool_calls: [call('c1', 'tool_output_cache', { ref_id: 'r1' })] }, 'done'],
        [tool('search', () => 'x')],
      );
      const expanded: unknown[] = [];
      manager.contributed = [
        {
          definition: { type: 'function', function: { name: 'tool_output_cache', parameters: { type: 'object' } } },
          execute: async (args) => {
            expanded.push(args);
            return '1: full line';
          },
        },
      ];
      const result = await agent.run('expand it');
      expect(llm.requests[0]!.tools?.map((t) => t.function.name)).toEqual(['search', 'tool_output_cache']);
      expect(expanded).toEqual([{ ref_id: 'r1' }]);
      expect(result.messages[2]!.content).toBe('1: full line');
    });

    it(
      'cuts tool outputs to the budget unless the strategy declares it fits them itself, whatever its tools are ' +
        'named',
      async () => {
        const output = Array.from({ length: 400 }, (_, i) => `line ${i}: ${'x'.repeat(40)}`).join('\n');
        const cacheTool: ContributedTool = {
          definition: { type: 'function', function: { name: 'tool_output_cache', parameters: { type: 'object' } } },
          execute: async () => 'x',
        };
        for (const declared of [false, true]) {
          const { agent, manager } = build(
            [{ content: null, tool_calls: [call('a', 'read')] }, 'ok'],
            [tool('read', () => output)],
          );
          manager.available = 1000;
          manager.truncatesToolOutputs = declared;
          // A tool of that name alone no longer switches agent-side truncation off.
          manager.contributed = [cacheTool];
          const result = await agent.run('read the log');
          const sent = result.messages.find((message) => message.role === 'tool')!.content as string;
          if (declared) expect(sent).toBe(output);
          else expect(sent.length).toBeLessThan(output.length);
        }
      },
    );

    it('passes the tool-output token limit of the payload budget to tools', async () => {
      const contexts: unknown[] = [];
      const { agent, manager } = build(
        [{ content: null, tool_calls: [call('a', 'read'), call('b', 'read')] }, 'ok'],
        [
          tool('read', (_args, context) => {
            contexts.push(context);
            return 'x';
          }),
        ],
      );
      manager.available = 1000;
      await agent.run('read two files');
      // used = 2 messages (system + user): remaining 998, tool share 60% = 598, split over two calls.
      expect(contexts).toEqual([
        { agentId: 'support', sessionId: 'default', toolCallId: 'a', toolOutputTokenLimit: 299 },
        { agentId: 'support', sessionId: 'default', toolCallId: 'b', toolOutputTokenLimit: 299 },
      ]);
    });

    it('calls the compaction hooks after each model call, after tools and before return', async () => {
      const { agent, manager } = build(
        [
          {
            reply: { content: null, tool_calls: [call('c1', 'echo')] },
            usage: { input_tokens: 100, output_tokens: 10 },
          },
          { reply: 'done', usage: { input_tokens: 200, output_tokens: 5 } },
        ],
        [tool('echo', () => 'e')],
      );
      await agent.run('go');
      expect(manager.checkpoints.map((c) => [c.checkpoint, c.usage?.total_tokens])).toEqual([
        ['after-llm-call', 110],
        ['after-tools', 110],
        ['after-llm-call', 205],
        ['before-return', 205],
      ]);
    });

    it('continues with the compacted history and keeps the pending tool calls paired', async () => {
      const { agent, manager, llm } = build(
        ['first answer', { content: null, tool_calls: [call('c9', 'echo')] }, 'second answer'],
        [tool('echo', () => 'e')],
      );
      await agent.run('first question');
      manager.compactAt = 'after-llm-call';
      const result = await agent.run('second question');
      expect(result.compactions).toBe(1);
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'user', 'user', 'assistant', 'tool', 'assistant']);
      expect(result.messages[0]!.content).toBe('<retain>ids</retain>');
      expect(result.messages[3]).toMatchObject({ tool_calls: [{ id: 'c9' }] });
      expect(llm.requests[2]!.messages.some((m) => m.content === 'first answer')).toBe(false);
      expect(agent.history()).toEqual(result.messages);
    });

    it('refuses to send a payload the provider would reject', async () => {
      const { agent, manager, llm } = build(['never']);
      manager.composePayload = async (systemPrompt, history, tools) => ({
        messages: [
          { role: 'system', content: systemPrompt },
          { role: 'tool', tool_call_id: 'x', content: 'orphan' },
          ...history,
        ],
        tools,
        stats: stats(1000, 3),
      });
      await expect(agent.run('hi')).rejects.toBeInstanceOf(ProviderPayloadError);
      expect(llm.requests).toHaveLength(0);
    });

    it('still refuses a payload whose bad message comes after turns it already checked', async () => {
      const { agent, manager, llm } = build(['a1', 'a2', 'a3'], [], {}, true);
      // A strategy that passes the history through as it is: each payload continues the previous one.
      let late: ChatMessage | undefined;
      manager.composePayload = async (systemPrompt, history, tools) => {
        const messages: ChatMessage[] = [
          { role: 'system', content: systemPrompt },
          ...history,
          ...(late ? [late] : []),
        ];
        return { messages, tools, stats: stats(10_000, messages.length) };
      };
      await agent.run('one');
      await agent.run('two');
      late = { role: 'assistant', content: null, tool_calls: [call('lost', 'echo')] };
      await expect(agent.run('three')).rejects.toMatchObject({
        code: ErrorCodes.PROVIDER_PAYLOAD_INVALID,
        details: { problems: [expect.stringMatching(/^missing-tool-result/)] },
      });
      expect(llm.requests).toHaveLength(2);
    });

    it('keeps history per session and never mutates a history it is given', async () => {
      const { agent } = build(['a1', 'b1', 'a2']);
      await agent.run('first', { sessionId: 'default' });
      const given: ChatMessage[] = [{ role: 'user', content: 'other conversation' }];
      const frozen = structuredClone(given);
      const other = build(['x']);
      const result = await other.agent.run(given);
      expect(given).toEqual(frozen);
      expect(result.messages).toHaveLength(2);
      await agent.run('second');
      expect(agent.history().map((m) => m.content)).toEqual(['first', 'a1', 'second', 'b1']);
    });

    it('hands the strategy the same frozen messages on every call and run, without copying them', async () => {
      const { agent, manager } = build(
        [{ content: null, tool_calls: [call('c1', 'echo')] }, 'first answer', 'second answer'],
        [tool('echo', () => 'e')],
      );
      const seen: ChatMessage[][] = [];
      const compose = manager.composePayload.bind(manager);
      manager.composePayload = async (systemPrompt, history, tools, ragContext) => {
        seen.push(history);
        return compose(systemPrompt, history, tools, ragContext);
      };
      const first = await agent.run('first question');
      const second = await agent.run('second question');
      // The first call composes twice (the window is learned from the first payload), then one per call.
      expect(seen).toHaveLength(4);
      for (const history of seen) for (const message of history) expect(Object.isFrozen(message)).toBe(true);
      // Each message is one object from the moment it enters the history: same object on every later call.
      expect(seen[2]![0]).toBe(seen[0]![0]);
      seen[3]!.slice(0, 4).forEach((message, index) => expect(message).toBe(first.messages[index]));
      expect(second.messages.slice(0, 4)).toEqual(first.messages);
      second.messages.slice(0, 4).forEach((message, index) => expect(message).toBe(first.messages[index]));
      const toolCalls = (second.messages[1] as AssistantMessage).tool_calls!;
      expect(Object.isFrozen(toolCalls) && Object.isFrozen(toolCalls[0]!.function)).toBe(true);
    });

    it("gives back a history nobody can change, and never freezes or keeps the caller's messages", async () => {
      const { agent, manager } = build(['a1', 'a2'], [], {}, true);
      const given: ChatMessage[] = [{ role: 'user', content: 'from the caller' }];
      const result = await agent.run(given);
      expect(Object.isFrozen(given[0])).toBe(false);
      expect(result.messages[0]).not.toBe(given[0]);
      expect(result.messages[0]).toEqual(given[0]);
      expect(agent.history()).toBe(result.messages);
      expect(() => (agent.history() as ChatMessage[]).push({ role: 'user', content: 'sneaked in' })).toThrow(TypeError);
      expect(() => {
        (agent.history()[0] as { content: string }).content = 'rewritten';
      }).toThrow(TypeError);
      // Passing the result back (plus a new message) continues with the same message objects.
      const next = await agent.run([...result.messages, { role: 'user', content: 'and then?' }]);
      expect(next.messages[0]).toBe(result.messages[0]);
      expect(next.messages[1]).toBe(result.messages[1]);
      expect(manager.completed.at(-1)!.map((m) => m.content)).toEqual(['from the caller', 'a1', 'and then?', 'a2']);
    });

    it('counts the turn of its events from the user messages of the history', async () => {
      const { agent, seen } = build(['a1', 'a2', 'a3'], [], {}, true);
      await agent.run('one');
      await agent.run('two');
      await agent.run([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
        { role: 'user', content: 'z' },
        { role: 'assistant', content: 'w' },
        { role: 'user', content: 'v' },
      ]);
      const ends = seen
        .filter((event) => event.name === 'agent-run-end')
        .map((event) => (event.payload as { turn: number }).turn);
      expect(ends).toEqual([1, 2, 3]);
    });

    it('refuses another session without a way to open it', async () => {
      const { agent } = build(['x']);
      await expect(agent.run('hi', { sessionId: 'other' })).rejects.toMatchObject({ code: ErrorCodes.STRATEGY_ERROR });
    });

    it('passes the RAG context to composePayload', async () => {
      const { agent, manager } = build(['x']);
      await agent.run('hi', { ragContext: 'Policy: bags are free.' });
      expect(manager.composed[0]!.ragContext).toBe('Policy: bags are free.');
    });
  });

  describe('#undo', () => {
    it('continues from the history an undone compaction gives back', async () => {
      const manager = new UndoableManager();
      const { agent, seen } = build(['a1', 'a2', 'a3'], [], {}, true, manager);
      await agent.run('first');
      await agent.run('second');
      const kept = agent.history().slice(0, 2);
      const transcript: ChatMessage[] = [
        ...kept,
        { role: 'user', content: 'what the compaction replaced' },
        { role: 'assistant', content: 'its answer' },
      ];
      manager.undoes.set('e1', transcript);
      const result = await agent.undo('e1');
      expect(manager.undone).toEqual(['e1']);
      expect(result.undone.id).toBe('e1');
      expect(agent.history()).toBe(result.history);
      expect(agent.history()).toEqual(transcript);
      // Frozen, and not copied: the agent's own messages and the restored ones are the same objects.
      agent.history().forEach((message, index) => expect(message).toBe(transcript[index]));
      expect(agent.history().every((message) => Object.isFrozen(message))).toBe(true);
      expect(() => (agent.history() as ChatMessage[]).push({ role: 'user', content: 'x' })).toThrow(TypeError);
      const next = await agent.run('third');
      expect(manager.composed.at(-1)!.history).toEqual([...transcript, { role: 'user', content: 'third' }]);
      next.messages.slice(0, 4).forEach((message, index) => expect(message).toBe(transcript[index]));
      // The turn counts the restored history's user messages.
      expect((seen.filter((event) => event.name === 'agent-run-end').at(-1)!.payload as { turn: number }).turn).toBe(3);
    });

    it('leaves the history as it is when the undone epoch did not replace it', async () => {
      const manager = new UndoableManager();
      const { agent } = build(['a1'], [], {}, true, manager);
      await agent.run('first');
      const before = agent.history();
      manager.undoes.set('e1', undefined);
      const result = await agent.undo('e1');
      expect(result.history).toBeUndefined();
      expect(agent.history()).toBe(before);
    });

    it("undoes in the session it is told, through the agent's sessions", async () => {
      const sessions = new Map<string, UndoableManager>([
        ['default', new UndoableManager()],
        ['ticket-7', new UndoableManager()],
      ]);
      const { agent } = build(['a1', 'a2'], [], { contextManagerFor: (id) => sessions.get(id)! }, true);
      await agent.run('first', { sessionId: 'ticket-7' });
      const restored: ChatMessage[] = [{ role: 'user', content: 'restored' }];
      sessions.get('ticket-7')!.undoes.set('e1', restored);
      await agent.undo('e1', { sessionId: 'ticket-7' });
      expect(sessions.get('ticket-7')!.undone).toEqual(['e1']);
      expect(sessions.get('default')!.undone).toEqual([]);
      expect(agent.history('ticket-7')).toEqual(restored);
      expect(agent.history()).toEqual([]);
    });

    it("passes the session's typed errors through: an unknown epoch, a strategy without undo", async () => {
      const manager = new UndoableManager();
      const { agent } = build(['a1'], [], {}, true, manager);
      await agent.run('first');
      const before = agent.history();
      const unknown = agent.undo('e9');
      await expect(unknown).rejects.toBeInstanceOf(EpochNotFoundError);
      await expect(unknown).rejects.toMatchObject({
        code: ErrorCodes.EPOCH_NOT_FOUND,
        details: { epochId: 'e9', available: ['e1'] },
      });
      manager.undo = async () => {
        throw new CapabilityUnsupportedError('recording', 'undo');
      };
      await expect(agent.undo('e1')).rejects.toBeInstanceOf(CapabilityUnsupportedError);
      expect(agent.history()).toBe(before);
      // A context manager without undo at all.
      const plain = build(['a1']);
      await expect(plain.agent.undo('e1')).rejects.toMatchObject({
        code: ErrorCodes.CAPABILITY_UNSUPPORTED,
        details: { strategyId: 'recording', capability: 'undo' },
      });
    });
  });

  describe('#epochs', () => {
    it("lists the session's epochs, none when its strategy records none", async () => {
      const manager = new UndoableManager();
      const { agent } = build(['a1'], [], {}, true, manager);
      expect(await agent.epochs()).toEqual(manager.recorded);
      expect(await build(['a1']).agent.epochs()).toEqual([]);
      const sessions = new Map<string, IContextManager>([
        ['default', new RecordingManager()],
        ['ticket-7', manager],
      ]);
      const routed = build(['a1'], [], { contextManagerFor: (id) => sessions.get(id)! });
      expect(await routed.agent.epochs({ sessionId: 'ticket-7' })).toEqual(manager.recorded);
      expect(await routed.agent.epochs()).toEqual([]);
    });
  });

  describe('prefix-bound thinking (Anthropic)', () => {
    /**
     * Passes the history through; once a tool result is in the history, adds a memory block after the system prompt
     * when `memory` is set.
     */
    class MemoryManager extends RecordingManager {
      memory: string | undefined;
      override async composePayload(
        systemPrompt: string,
        history: ChatMessage[],
        tools: ToolDefinition[],
        ragContext?: string,
      ): Promise<LLMPayload> {
        const payload = await super.composePayload(systemPrompt, history, tools, ragContext);
        if (!history.some((message) => message.role === 'tool') || this.memory === undefined) return payload;
        const messages: ChatMessage[] = [
          payload.messages[0]!,
          { role: 'system', content: this.memory },
          ...payload.messages.slice(1),
        ];
        return { ...payload, messages };
      }
    }
    const thinkingCall = {
      content: null,
      tool_calls: [call('c1', 'lookup')],
      reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' } }],
    };

    function run(memory: string | undefined) {
      const manager = new MemoryManager();
      manager.memory = memory;
      const built = build(
        [thinkingCall, 'Done.'],
        [tool('lookup', async () => 'found')],
        { provider: 'anthropic' },
        false,
        manager,
      );
      const invalidated: unknown[] = [];
      built.events.on('thinking-invalidated', (payload) => invalidated.push(payload.invalidated));
      return { ...built, invalidated };
    }

    it('sends the thinking block back while the prefix before it is unchanged', async () => {
      const { agent, llm, invalidated } = run(undefined);
      const result = await agent.run('Find my booking');
      const sent = llm.requests[1]!.messages.find((message) => message.role === 'assistant') as AssistantMessage;
      expect(sent.reasoning).toEqual(thinkingCall.reasoning);
      expect(invalidated).toEqual([]);
      expect(result.payloads[1]!.invalidatedThinking).toBeUndefined();
    });

    it(
      'leaves the block out when a memory block changed the system prompt before it, and reports it in stats and ' +
        'an event',
      async () => {
        const { agent, llm, invalidated } = run('Known: booking ABC123.');
        const result = await agent.run('Find my booking');
        expect(result.finalText).toBe('Done.');
        const sent = llm.requests[1]!.messages.find((message) => message.role === 'assistant') as AssistantMessage;
        expect(sent.reasoning).toBeUndefined();
        expect(sent.tool_calls).toEqual(thinkingCall.tool_calls);
        const report = [{ messageIndex: 3, blocks: 1, changed: 'system' }];
        expect(invalidated).toEqual([report]);
        expect(result.payloads[1]!.invalidatedThinking).toEqual(report);
      },
    );

    it('takes the provider from the client when the options name none', async () => {
      const left: boolean[] = [];
      for (const provider of ['anthropic', undefined] as const) {
        const manager = new MemoryManager();
        manager.memory = 'Known: booking ABC123.';
        const llm = Object.assign(
          new ScriptedLLMClient([thinkingCall, 'Done.']),
          provider !== undefined ? { provider } : {},
        );
        const child = rootContainer.createChildContainer();
        child.register(IContextManager, { useValue: manager });
        child.register(ILLMClient, { useValue: llm });
        child.register(IEventBus, { useValue: new CtxkitEventBus() });
        child.register(IToolRegistry, { useValue: new ToolRegistry([tool('lookup', async () => 'found')]) });
        child.register(IAgentOptions, {
          useValue: { agentId: 'support', strategyId: 'recording', systemPrompt: 'You help.' },
        });
        await child.resolve(Agent).run('Find my booking');
        const sent = llm.requests[1]!.messages.find((message) => message.role === 'assistant') as AssistantMessage;
        left.push(sent.reasoning === undefined);
      }
      // A client declaring the Messages API gets the thinking binding; one declaring nothing is checked as chat
      // completions.
      expect(left).toEqual([true, false]);
    });
  });
});
