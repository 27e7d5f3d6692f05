import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { ChatMessage } from '../contracts/chat-message';
import type { IContextManager } from '../contracts/context-manager';
import type { IContextStore } from '../contracts/context-store';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitError } from '../errors/ctxkit-error';
import { PinBudgetExceededError } from '../errors/pin-budget-exceeded-error';
import { PinTargetError } from '../errors/pin-target-error';
import { freezeDeep } from '../messages/freeze-deep';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { createContextRuntime } from '../runtime/create-context-runtime';
import { FileContextStore } from '../stores/file-context-store';
import { MemoryContextStore } from '../stores/memory-context-store';
import { pinMessageText } from './pin-block';
import { PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL } from './pin-tools';
import { PIN_ROOM_NOTE } from './session-pins';

interface Call {
  systemPrompt: string;
  history: ChatMessage[];
}

/** A strategy that sends what it is given and records every call (budget as given). */
function recordingStrategy(available = 100_000) {
  const calls: Call[] = [];
  const turns: ChatMessage[][] = [];
  const factory: StrategyFactory = () => ({
    async composePayload(systemPrompt, history) {
      calls.push({ systemPrompt, history });
      return {
        messages: [{ role: 'system', content: systemPrompt }, ...history],
        tools: [],
        stats: { budget: { available }, extra: { own: 1 } },
      } as unknown as LLMPayload;
    },
    async onTurnComplete(history) {
      turns.push(history);
    },
  });
  return { calls, turns, factory };
}

async function agentWith(
  factory: StrategyFactory,
  manifest: Record<string, unknown> = {},
  store: IContextStore = new MemoryContextStore(),
  config: Record<string, unknown> = {},
) {
  const runtime = await createContextRuntime({ discoverInstalled: false, store });
  runtime.registerStrategy({ id: 'test-strategy', configSchema: { type: 'object' } }, factory);
  return runtime.loadAgent({
    id: 'agent',
    contextStrategy: { type: 'plugin', pluginId: 'test-strategy', config },
    ...manifest,
  });
}

const history = (): ChatMessage[] =>
  freezeDeep([
    { role: 'user', content: 'Refactor the parser; keep the public API — 東京 🚀' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/parser.ts"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'export function parse() {}' },
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Now the tests.' },
  ] as ChatMessage[]);

describe('session pins', () => {
  it(
    'shows a pinned message in one block after the system prompt and a stand-in in its place, without touching the ' +
      'caller history',
    async () => {
      const { calls, factory } = recordingStrategy();
      const session = (await agentWith(factory)).forSession('s1');
      const pin = await session.pin(0, { label: 'task' });
      expect(pin).toMatchObject({ id: 'p1', kind: 'message', messageIndex: 0, label: 'task', text: '' });
      const given = history();
      const copy = JSON.stringify(given);
      const payload = await session.composePayload('You are careful.', given, []);

      // The block goes in its own user message after the system prompt; the strategy is given it (and room for that
      // message) in the system prompt.
      const block = pinMessageText(
        '<pinned>\n[pin p1 · task]\nRefactor the parser; keep the public API — 東京 🚀\n</pinned>',
      );
      expect(payload.messages.slice(0, 2)).toEqual([
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: block },
      ]);
      expect(calls[0]!.systemPrompt.startsWith(`You are careful.\n\n${block}\n${PIN_ROOM_NOTE}`)).toBe(true);
      expect(calls[0]!.history).not.toBe(given);
      expect(calls[0]!.history[0]).toEqual({
        role: 'user',
        content: '[pin p1: this message is kept verbatim in the pinned block above]',
      });
      expect(calls[0]!.history.slice(1)).toEqual(given.slice(1));
      expect(calls[0]!.history[1]).toBe(given[1]);
      expect(JSON.stringify(given)).toBe(copy);
      expect(payload.stats.extra).toEqual({ own: 1, pins: { count: 1, tokens: expect.any(Number), ids: ['p1'] } });
      expect((payload.stats.extra!.pins as { tokens: number }).tokens).toBeGreaterThan(10);
      expect(await session.pins()).toEqual([
        expect.objectContaining({
          id: 'p1',
          role: 'user',
          text: 'Refactor the parser; keep the public API — 東京 🚀',
          tokens: expect.any(Number),
        }),
      ]);
    },
  );

  it('keeps the stand-in tool-call structure of a pinned assistant call and its tool result', async () => {
    const { calls, factory } = recordingStrategy();
    const session = (await agentWith(factory)).forSession('s1');
    await session.pin(1);
    await session.pin(2, { label: 'parser source' });
    await session.composePayload('sys', history(), []);
    const [call, result] = calls[0]!.history.slice(1, 3) as [
      Extract<ChatMessage, { role: 'assistant' }>,
      Extract<ChatMessage, { role: 'tool' }>,
    ];
    expect(call.tool_calls).toEqual(
      history()[1]!.role === 'assistant' ? (history()[1] as typeof call).tool_calls : undefined,
    );
    expect(call.content).toContain('pin p1');
    expect(result).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '[pin p2: this message is kept verbatim in the pinned block above]',
    });
    expect(calls[0]!.systemPrompt).toContain('[pin p1 · message 1]\n[call read_file {"path":"src/parser.ts"}]');
    expect(calls[0]!.systemPrompt).toContain('[pin p2 · parser source]\nexport function parse() {}');
  });

  it(
    'gives the strategy the same stand-in objects and a byte-identical system prompt while the pins do not ' + 'change',
    async () => {
      const { calls, factory } = recordingStrategy();
      const session = (await agentWith(factory)).forSession('s1');
      await session.pin(0);
      const first = history();
      await session.composePayload('sys', first, []);
      const grown = [
        ...first,
        { role: 'assistant', content: 'Tests next.' } as ChatMessage,
        { role: 'user', content: 'Go.' } as ChatMessage,
      ];
      await session.composePayload('sys', grown, []);
      await session.composePayload('sys', grown, []);
      expect(calls[1]!.history[0]).toBe(calls[0]!.history[0]);
      expect(calls[2]!.history).toBe(calls[1]!.history);
      expect(calls[1]!.systemPrompt).toBe(calls[0]!.systemPrompt);
      // A history rebuilt from JSON is recognised by content: the same stand-in is used.
      await session.composePayload('sys', JSON.parse(JSON.stringify(grown)) as ChatMessage[], []);
      expect(calls[3]!.history[0]).toEqual(calls[0]!.history[0]);
    },
  );

  it('passes the caller history itself when no message is pinned, and keeps a text pin verbatim', async () => {
    const { calls, factory } = recordingStrategy();
    const session = (await agentWith(factory)).forSession('s1');
    const given = history();
    await session.composePayload('sys', given, []);
    expect(calls[0]).toEqual({ systemPrompt: 'sys', history: given });
    expect(calls[0]!.history).toBe(given);
    await session.pin('Never delete files.\nAsk before pushing.', { label: 'rules' });
    const payload = await session.composePayload('sys', given, []);
    expect(calls[1]!.history).toBe(given);
    expect(payload.messages[1]).toEqual({
      role: 'user',
      content: pinMessageText('<pinned>\n[pin p1 · rules]\nNever delete files.\nAsk before pushing.\n</pinned>'),
    });
  });

  it('uses the captured text after the host history was compacted, and pins the same thing once', async () => {
    const { calls, factory } = recordingStrategy();
    const session = (await agentWith(factory)).forSession('s1');
    await session.pin(0, { label: 'task' });
    await session.composePayload('sys', history(), []);
    const compacted: ChatMessage[] = [
      { role: 'user', content: 'Summary of earlier turns.' },
      { role: 'user', content: 'Now the tests.' },
    ];
    await session.composePayload('sys', compacted, []);
    expect(calls[1]!.systemPrompt).toContain('Refactor the parser; keep the public API — 東京 🚀');
    expect(calls[1]!.history).toBe(compacted);
    expect(await session.pin(0, { label: 'again' })).toMatchObject({ id: 'p1', label: 'task' });
    expect(await session.pin('x')).toMatchObject({ id: 'p2' });
    expect(await session.pin('x')).toMatchObject({ id: 'p2' });
    expect((await session.pins()).map((pin) => pin.id)).toEqual(['p1', 'p2']);
  });

  it('waits for a history that reaches the pinned index before showing a message pin', async () => {
    const { calls, factory } = recordingStrategy();
    const session = (await agentWith(factory)).forSession('s1');
    await session.pin(4);
    const short = history().slice(0, 2);
    await session.composePayload('sys', short, []);
    expect(calls[0]!.systemPrompt).toBe('sys');
    expect(calls[0]!.history).toBe(short);
    await session.composePayload('sys', history(), []);
    expect(calls[1]!.systemPrompt).toContain('[pin p1 · message 4]\nNow the tests.');
  });

  it('removes a pin: the next payload has no block and the caller history goes through untouched', async () => {
    const { calls, factory } = recordingStrategy();
    const agent = await agentWith(factory);
    const session = agent.forSession('s1');
    const events: string[] = [];
    agent.events.on('pin-added', (event) => events.push(`added ${event.pin.id} ${event.sessionId}`));
    agent.events.on('pin-removed', (event) => events.push(`removed ${event.pin.id} turn ${event.turn}`));
    await session.pin(0);
    await session.composePayload('sys', history(), []);
    expect(await session.unpin('p9')).toBe(false);
    expect(await session.unpin('p1')).toBe(true);
    const given = history();
    await session.composePayload('sys', given, []);
    expect(calls[1]).toEqual({ systemPrompt: 'sys', history: given });
    expect(calls[1]!.history).toBe(given);
    expect(events).toEqual(['added p1 s1', 'removed p1 turn 2']);
  });

  it('refuses what it cannot pin with a typed error', async () => {
    const session = (await agentWith(recordingStrategy().factory)).forSession('s1');
    for (const target of [-1, 1.5, Number.NaN, '', '   '])
      await expect(session.pin(target)).rejects.toBeInstanceOf(PinTargetError);
    await expect(session.pin(0, { label: ' ' })).rejects.toMatchObject({
      code: 'CTXKIT_PIN_TARGET_INVALID',
      message: expect.stringContaining('label'),
    });
    await expect(session.pin(0, { label: 'x'.repeat(201) })).rejects.toBeInstanceOf(PinTargetError);
    expect(await session.pins()).toEqual([]);
  });

  it('refuses pins past their share of the budget, naming them, before the strategy runs', async () => {
    const { calls, factory } = recordingStrategy(400);
    // 1,000 tokens, no output reservation, 10% margin: 900 available, 225 for pins before the first payload.
    const session = (
      await agentWith(factory, {}, new MemoryContextStore(), { maxContextTokens: 1000, reserveOutputTokens: 0 })
    ).forSession('s1');
    const long = 'word '.repeat(300);
    const refused = await session.pin(long, { label: 'too long' }).catch((error: unknown) => error);
    expect(PinBudgetExceededError.isInstance(refused)).toBe(true);
    expect((refused as PinBudgetExceededError).shortfall).toMatchObject({
      allowance: 225,
      available: 900,
      pinShare: 0.25,
      pins: [{ id: 'p1', label: 'too long', tokens: expect.any(Number) }],
    });
    expect((refused as Error).message).toMatch(/p1 "too long" \d+ tokens/);
    expect((refused as Error).message).toContain('pinShare');
    expect((refused as Error).message).toContain('unpin');
    expect(await session.pins()).toEqual([]);

    // A message pin's text is known at compose time: the compose is refused, the strategy never called.
    const big: ChatMessage[] = [
      { role: 'user', content: long },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'next' },
    ];
    await session.pin(0, { label: 'huge message' });
    await expect(session.composePayload('sys', big, [])).rejects.toMatchObject({
      code: 'CTXKIT_PIN_BUDGET_EXCEEDED',
      message: expect.stringContaining('p1 "huge message"'),
    });
    expect(calls).toHaveLength(0);
  });

  it('takes the available budget from the strategy payload once there is one', async () => {
    const { factory } = recordingStrategy(40);
    const session = (await agentWith(factory, { pinShare: 0.5 })).forSession('s1');
    await session.composePayload('sys', history(), []);
    // 50% of the 40 tokens the payload said: a pin of more than 20 tokens is refused.
    await expect(
      session.pin('a text that is clearly longer than twenty tokens once it is counted with its header line and more'),
    ).rejects.toMatchObject({
      code: 'CTXKIT_PIN_BUDGET_EXCEEDED',
      details: expect.objectContaining({ allowance: 20, available: 40, pinShare: 0.5 }),
    });
    expect(await session.pin('short')).toMatchObject({ id: 'p1' });
  });

  it('keeps pins in the store: another agent on the same store sees them, concurrent pins are all kept', async () => {
    const store = new MemoryContextStore();
    const one = (await agentWith(recordingStrategy().factory, {}, store)).forSession('s1');
    const two = (await agentWith(recordingStrategy().factory, {}, store)).forSession('s1');
    await Promise.all([one.pin('from one'), two.pin('from two'), one.pin('also one'), two.pin(3)]);
    const ids = (await one.pins()).map((pin) => pin.id).sort();
    expect(ids).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect((await two.pins()).map((pin) => pin.text).sort()).toEqual(['', 'also one', 'from one', 'from two']);
    expect(await (await agentWith(recordingStrategy().factory, {}, store)).forSession('s2').pins()).toEqual([]);
  });

  it('survives a restart with the file store, captured text included', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-pins-'));
    try {
      const first = recordingStrategy();
      const before = (await agentWith(first.factory, {}, new FileContextStore({ rootDir: dir }))).forSession('s1');
      await before.pin(0, { label: 'task' });
      await before.composePayload('sys', history(), []);
      const after = recordingStrategy();
      const restarted = (await agentWith(after.factory, {}, new FileContextStore({ rootDir: dir }))).forSession('s1');
      await restarted.composePayload('sys', [{ role: 'user', content: 'a new process, a compacted history' }], []);
      expect(after.calls[0]!.systemPrompt).toBe(first.calls[0]!.systemPrompt);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies the manifest pins to every session once each; an unpinned declared pin stays unpinned', async () => {
    const store = new MemoryContextStore();
    const manifest = {
      pins: [
        { message: 'first-user', label: 'task' },
        { text: 'Never delete files.', label: 'rule' },
      ],
    };
    const { calls, factory } = recordingStrategy();
    const agent = await agentWith(factory, manifest, store);
    const session = agent.forSession('s1');
    expect((await session.pins()).map((pin) => `${pin.id} ${pin.kind} ${pin.label}`)).toEqual([
      'p1 message task',
      'p2 text rule',
    ]);
    const given: ChatMessage[] = [{ role: 'system', content: 'host note' }, ...history()];
    const payload = await session.composePayload('sys', given, []);
    // After every system message the payload starts with (the host's own note too).
    expect(payload.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'host note' },
    ]);
    expect(payload.messages[2]).toEqual({
      role: 'user',
      content: pinMessageText(
        '<pinned>\n[pin p1 · task]\nRefactor the parser; keep the public API — 東京 🚀\n\n[pin p2 · rule]\nNever ' +
          'delete files.\n</pinned>',
      ),
    });
    expect(calls[0]!.history[1]).toMatchObject({ role: 'user', content: expect.stringContaining('pin p1') });
    expect((await session.pins())[0]).toMatchObject({ messageIndex: 1, role: 'user' });
    expect(await session.unpin('p2')).toBe(true);
    const reopened = (await agentWith(recordingStrategy().factory, manifest, store)).forSession('s1');
    expect((await reopened.pins()).map((pin) => pin.id)).toEqual(['p1']);
    expect((await agent.forSession('s2').pins()).map((pin) => pin.id)).toEqual(['p1', 'p2']);
  });

  it('offers pin_context and unpin_context with "pinTool": true, beside the strategy tools', async () => {
    const plain = await agentWith(recordingStrategy().factory);
    expect(plain.forSession('s1').contributedTools).toBeUndefined();
    const agent = await agentWith(recordingStrategy().factory, { pinTool: true });
    const session = agent.forSession('s1');
    const tools = session.contributedTools!();
    expect(tools.map((tool) => tool.definition.function.name)).toEqual([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]);
    const context = { agentId: 'agent', sessionId: 's1', toolCallId: 't1' };
    expect(await tools[0]!.execute(JSON.stringify({ text: 'The user is Ada.', label: 'user' }), context)).toContain(
      'p1',
    );
    expect(await session.pins()).toEqual([
      expect.objectContaining({ id: 'p1', kind: 'text', label: 'user', text: 'The user is Ada.' }),
    ]);
    await expect(tools[0]!.execute({ label: 'no text' }, context)).rejects.toBeInstanceOf(PinTargetError);
    expect(await tools[1]!.execute({ id: 'p7' }, context)).toBe('No pin p7; the pins are: p1.');
    expect(await tools[1]!.execute({ id: 'p1' }, context)).toBe('Unpinned p1.');

    const toolStrategy: StrategyFactory = () =>
      ({
        ...recordingStrategy().factory({}, undefined as never),
        contributedTools: () => [
          { definition: { type: 'function', function: { name: 'expand' } }, execute: async () => 'x' },
        ],
      }) as IContextManager;
    const both = await agentWith(toolStrategy, { pinTool: true });
    expect(both.forSession('s1').contributedTools!().map((tool) => tool.definition.function.name)).toEqual([
      'expand',
      PIN_CONTEXT_TOOL,
      UNPIN_CONTEXT_TOOL,
    ]);
  });

  it('gives the strategy stand-ins at turn end and compaction, and the host its pinned messages back', async () => {
    const seen: ChatMessage[][] = [];
    const factory: StrategyFactory = () =>
      ({
        ...recordingStrategy().factory({}, undefined as never),
        async onTurnComplete(history: ChatMessage[]) {
          seen.push(history);
        },
        async checkCompaction(_checkpoint: unknown, history: ReadonlyArray<ChatMessage>) {
          seen.push([...history]);
          // Keeps the first message (the stand-in) and the last one; a copy as from a store.
          return {
            compacted: true,
            messages: JSON.parse(
              JSON.stringify([history[0], { role: 'user', content: 'summary' }, history[history.length - 1]]),
            ) as ChatMessage[],
          };
        },
        async undo() {
          return {
            undone: { id: 'e1', kind: 'compaction', at: 0, turn: 0, description: '' },
            alsoUndone: [],
            history: [seen[1]![0]!, { role: 'user', content: 'later' }],
          };
        },
      }) as unknown as IContextManager;
    const session = (await agentWith(factory)).forSession('s1');
    await session.pin(0);
    const given = history();
    await session.composePayload('sys', given, []);
    await session.onTurnComplete(given);
    expect(seen[0]![0]).toMatchObject({ content: expect.stringContaining('pin p1') });
    const compacted = await session.checkCompaction!('after-tools', given);
    expect(seen[1]![0]).toBe(seen[0]![0]);
    expect(compacted.messages![0]).toEqual(given[0]);
    expect(compacted.messages![1]).toEqual({ role: 'user', content: 'summary' });
    const undone = await session.undo('e1');
    expect(undone.history![0]).toBe(given[0]);
  });

  it('refuses everything after the agent is disposed', async () => {
    const agent = await agentWith(recordingStrategy().factory);
    const session = agent.forSession('s1');
    await agent.dispose();
    await expect(session.pin('x')).rejects.toBeInstanceOf(CtxkitError);
    await expect(session.pins()).rejects.toMatchObject({ code: 'CTXKIT_DISPOSED' });
  });
});
