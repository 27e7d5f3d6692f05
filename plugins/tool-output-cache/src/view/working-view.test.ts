import {
  type ChatMessage,
  createTokenCounter,
  MemoryContextStore,
  type ToolMessage,
  type UserMessage,
} from '@ctxkit/core';
import fc from 'fast-check';

import { CachedOutputs } from '../cache/cached-outputs';
import { ToolOutputCache } from '../cache/tool-output-cache';
import { type CompactionState, layoutHistory, NO_COMPACTION_LAYOUT } from '../compaction/history-layout';
import { exchange, output } from '../test-support';
import {
  resolveToolOutputCacheStrategyConfig,
  type ToolOutputCacheStrategyConfig,
} from '../tool-output-cache-strategy-config';
import {
  type BudgetedOutput,
  placeLayout,
  toolOutputBudgetCut,
  toolOutputBudgetTokens,
  WorkingView,
} from './working-view';

const counter = createTokenCounter({ model: 'gpt-4o' });

function view(config: ToolOutputCacheStrategyConfig = {}, toolOutputBudget = 100_000) {
  const store = new MemoryContextStore();
  const resolved = resolveToolOutputCacheStrategyConfig(config);
  const cache = new ToolOutputCache({
    store,
    agentId: 'agent',
    sessionId: 'session',
    maxMessageBytes: resolved.toolOutputCache.maxMessageBytes,
    maxLineLength: resolved.toolOutputCache.maxLineLength,
  });
  const outputs = new CachedOutputs({
    cache,
    counter,
    emit: () => undefined,
  });
  const ensure = jest.spyOn(outputs, 'ensure');
  return {
    working: new WorkingView({ config: resolved, counter, outputs, toolOutputBudget }),
    ensure,
    cache,
    outputs,
  };
}

/** Tokens of one log output of {@link history} as a tool message. */
const logTokens = (): number =>
  counter.countMessage({ role: 'tool', tool_call_id: 'c0', content: output('log0', 20) }) + 40;
const tools = (messages: ReadonlyArray<ChatMessage>) =>
  messages.filter((message): message is ToolMessage => message.role === 'tool');

function history(): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
  for (let index = 0; index < 4; index++) messages.push(...exchange(`c${index}`, output(`log${index}`, 20)));
  messages.push({ role: 'user', content: 'Fix it.' });
  return messages;
}

/** A long coding history: `exchanges` outputs of about 1,000 tokens each, a user message every fifth. */
function longHistory(exchanges: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; index < exchanges; index++) {
    if (index % 5 === 0) messages.push({ role: 'user', content: `Step ${index}.` });
    messages.push(...exchange(`l${index}`, output(`file${index}`, 60)));
  }
  messages.push({ role: 'user', content: 'Now?' });
  return messages;
}

describe('WorkingView', () => {
  describe('#prepare', () => {
    it(
      'shows each output as a copy with its ref, the same copy from call to call, and leaves the caller history ' +
        'alone',
      async () => {
        const { working, cache } = view();
        const given = history();
        working.sync(given, NO_COMPACTION_LAYOUT, 2);
        const first = await working.prepare(100_000);
        const cachedFirst = working.cells.takeNewlyCached();
        working.sync([...given], NO_COMPACTION_LAYOUT, 2);
        const second = await working.prepare(100_000);
        expect(tools(first.messages)).toHaveLength(4);
        expect(tools(first.messages).every((message) => message.output_ref?.id.startsWith('to_'))).toBe(true);
        second.messages.forEach((message, index) => expect(message).toBe(first.messages[index]));
        expect(given.some((message) => message.role === 'tool' && message.output_ref)).toBe(false);
        expect([cachedFirst, working.cells.takeNewlyCached()]).toEqual([4, 0]);
        expect(await cache.list()).toHaveLength(4);
        expect(first.hidesOutput).toBe(false);
        expect(first.region).toBe(0);
      },
    );

    it('trims the oldest outputs to the tool output budget, never the current turn', async () => {
      const given = [...history(), ...exchange('now', output('current', 40))];
      const { working } = view({}, 2 * logTokens());
      working.sync(given, NO_COMPACTION_LAYOUT, 2);
      const prepared = await working.prepare(100_000);
      const contents = tools(prepared.messages).map((message) => String(message.content));
      const trimmed = contents.filter((content) => content.startsWith('[tool output trimmed; ref=to_'));
      // The current turn's output takes nearly the whole budget, so all four older ones give way.
      expect(contents.slice(0, 4)).toEqual(trimmed);
      expect(contents[4]).toBe(output('current', 40));
      // One sparse range for the four placeholders, each ref named.
      const [trimmedRecord, ...others] = prepared.log.list().filter((record) => record.action === 'trimmed');
      expect(others).toEqual([]);
      expect(trimmedRecord).toMatchObject({ from: 2, to: 9, messages: 4 });
      expect(trimmedRecord!.refs).toEqual(
        tools(prepared.messages)
          .slice(0, 4)
          .map((message) => message.output_ref!.id),
      );
      expect(prepared.hidesOutput).toBe(true);
      expect(prepared.protectFrom).toBe(9);
    });

    it('keeps the newest outputs that fit the tool output budget together and trims every older one', async () => {
      const given = history();
      const { working } = view({}, 2 * logTokens() + 10);
      working.sync(given, NO_COMPACTION_LAYOUT, 2);
      const prepared = await working.prepare(100_000);
      expect(
        tools(prepared.messages).map((message) => String(message.content).startsWith('[tool output trimmed')),
      ).toEqual([true, true, false, false]);
    });

    it('caches, shows and counts only the outputs a payload of the given size can reach', async () => {
      const given = longHistory(300);
      const { working, ensure } = view();
      working.sync(given, NO_COMPACTION_LAYOUT, 61);
      const prepared = await working.prepare(4_000);
      // Each output can give way to a placeholder of about 30 tokens: 4,000 tokens reach about 50 exchanges back.
      expect(prepared.region).toBeGreaterThan(given.length - 300);
      expect(prepared.region).toBeLessThan(given.length - 20);
      const cachedCalls = ensure.mock.calls.length;
      expect(cachedCalls).toBeLessThan(200);
      // Older positions keep the caller's messages; reachable ones are views with refs.
      expect(prepared.messages.slice(0, prepared.region)).toEqual(given.slice(0, prepared.region));
      expect(prepared.messages.slice(0, prepared.region).every((message, index) => message === given[index])).toBe(
        true,
      );
      expect(tools(prepared.messages.slice(prepared.region)).every((message) => message.output_ref !== undefined)).toBe(
        true,
      );

      // The next turn looks only at what is new.
      const next = [...given, ...exchange('next', output('next', 5))];
      working.sync(next, NO_COMPACTION_LAYOUT, 61);
      await working.prepare(4_000);
      expect(ensure.mock.calls.length - cachedCalls).toBeLessThanOrEqual(2);
    });

    it('finds the bound a new view finds, turn after turn, while the whole history fits and after', async () => {
      let given = longHistory(30);
      const regionAt = async (messages: ChatMessage[], available: number) => {
        const fresh = view().working;
        fresh.sync(messages, NO_COMPACTION_LAYOUT, 9);
        return (await fresh.prepare(available)).region;
      };
      // The smallest room the whole history fits (each older output as a placeholder), and a little more.
      let low = 0;
      let high = 100_000;
      while (low < high) {
        const middle = (low + high) >> 1;
        if ((await regionAt(given, middle)) === 0) high = middle;
        else low = middle + 1;
      }
      const room = low + 60;
      const { working } = view();
      working.sync(given, NO_COMPACTION_LAYOUT, 7);
      expect((await working.prepare(room)).region).toBe(0);
      // A turn that still fits.
      given = [...given, ...exchange('g0', 'ok'), { role: 'user', content: 'More?' }];
      working.sync(given, NO_COMPACTION_LAYOUT, 8);
      expect((await working.prepare(room)).region).toBe(0);
      // Once the history no longer fits, the bound is the one a new view finds.
      given = [
        ...given,
        ...[1, 2, 3, 4, 5].flatMap((index) => exchange(`g${index}`, output(`big${index}`, 60))),
        { role: 'user', content: 'And now?' },
      ];
      working.sync(given, NO_COMPACTION_LAYOUT, 9);
      const region = (await working.prepare(room)).region;
      expect(region).toBeGreaterThan(0);
      expect(region).toBe(await regionAt(given, room));
    });

    it('adopts a history rebuilt from JSON without caching again, and makes anew what changed', async () => {
      const given = history();
      const { working, ensure } = view();
      working.sync(given, NO_COMPACTION_LAYOUT, 2);
      const first = await working.prepare(100_000);
      const rebuilt = JSON.parse(JSON.stringify(given)) as ChatMessage[];
      (rebuilt[4] as ToolMessage).content = 'edited';
      ensure.mockClear();
      working.sync(rebuilt, NO_COMPACTION_LAYOUT, 2);
      const second = await working.prepare(100_000);
      expect(ensure).toHaveBeenCalledTimes(1);
      expect(second.messages[2]).toBe(first.messages[2]);
      expect(second.messages[4]!.content).toBe('edited');
    });
  });

  describe('#entries', () => {
    it('lays the whole view over a compaction, retain + summary first, caching every output', async () => {
      const given = longHistory(40);
      const { working, ensure } = view({}, 3 * logTokens());
      const summary: ChatMessage = { role: 'user', content: 'summary' };
      const layout = layoutHistory(given, {
        prefix: [summary as ChatMessage & { role: 'user' }],
        keepFrom: 10,
        covered: given.slice(0, 10),
        transcriptRef: 'transcript:t',
        tokensBefore: 1,
        tokensAfter: 1,
        count: 1,
      })!;
      working.sync(given, layout, 9);
      const entries = await working.entries();
      expect(entries[0]).toEqual({ message: summary, source: null });
      expect(entries.slice(1).map((entry) => entry.source)).toEqual(given.slice(10).map((_, index) => 10 + index));
      expect(ensure.mock.calls.length).toBe(tools(given.slice(10)).length);
      const shown = tools(entries.map((entry) => entry.message));
      expect(shown.every((message) => message.output_ref !== undefined)).toBe(true);
      // The tool output budget keeps the newest output (two do not fit it): the older ones are placeholders.
      expect(shown.map((message) => String(message.content).startsWith('[tool output trimmed'))).toEqual([
        ...shown.slice(1).map(() => true),
        false,
      ]);
      expect(await working.tokensUpTo(Number.POSITIVE_INFINITY)).toBe(
        counter.countMessages(entries.map((entry) => entry.message)),
      );
    });
  });
});

describe('placeLayout', () => {
  const user = (content: string): UserMessage => ({ role: 'user', content });
  const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
  const given = [user('task'), assistant('a1'), user('more'), assistant('a2'), user('now')];
  const state: CompactionState = {
    prefix: [user('summary')],
    keepFrom: 3,
    covered: given.slice(0, 3),
    transcriptRef: 'transcript:t.jsonl',
    tokensBefore: 100,
    tokensAfter: 10,
    count: 1,
  };

  it('starts at 0 without a compaction', () => {
    expect(placeLayout(layoutHistory(given, undefined)!, given.length)).toEqual({ startIndex: 0 });
  });

  it('starts at the first kept message, or after the whole history when nothing is kept', () => {
    expect(placeLayout(layoutHistory(given, state)!, given.length)).toEqual({ startIndex: 3 });
    const nothingKept = { ...state, keepFrom: 5, covered: given };
    expect(placeLayout(layoutHistory(given, nothingKept)!, given.length)).toEqual({ startIndex: 5 });
  });

  it('puts a carried user message right before the kept messages, in the position it displaces', () => {
    const carried = { ...given[0]! } as UserMessage;
    const layout = layoutHistory(given, { ...state, prefix: [user('summary'), carried], carriedSource: 0 })!;
    expect(placeLayout(layout, given.length)).toEqual({ startIndex: 2, carriedAt: 2 });
  });

  it('starts after retain + summary in a history that adopted the compaction', () => {
    const adopted = [...state.prefix, given[3]!, given[4]!];
    expect(placeLayout(layoutHistory(adopted, state)!, adopted.length)).toEqual({ startIndex: 1 });
  });
});

const user: ChatMessage = { role: 'user', content: 'u' };
const call: ChatMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c', type: 'function', function: { name: 'run', arguments: '{}' } }],
};
const result: ChatMessage = { role: 'tool', tool_call_id: 'c', content: 'out' };

/** A history of tool outputs with the given sizes (a user message first), and its outputs by position. */
function outputsView(sizes: ReadonlyArray<{ tokens: number; trimmable: boolean }>) {
  const messages: ChatMessage[] = [user];
  const outputs = new Map<number, BudgetedOutput>();
  for (const size of sizes) {
    messages.push(call);
    outputs.set(messages.length, { budgetTokens: size.tokens, trimmable: size.trimmable });
    messages.push(result);
  }
  return { messages, outputs };
}

describe('toolOutputBudgetCut', () => {
  it(
    'keeps the newest outputs that fit together beside the current turn and cuts at the first that does ' + 'not',
    async () => {
      const { messages, outputs } = outputsView([300, 300, 300, 300].map((tokens) => ({ tokens, trimmable: true })));
      const asked: number[] = [];
      const output = (position: number) => {
        asked.push(position);
        return outputs.get(position)!;
      };
      // The newest output is the current turn's: it counts, then two older ones fit 1,000 beside it.
      expect(await toolOutputBudgetCut({ messages, from: 0, protectFrom: 7, budgetTokens: 1000, output })).toBe(2);
      // Only the outputs kept and the cut were looked at.
      expect(asked).toEqual([8, 6, 4, 2]);
      expect(
        await toolOutputBudgetCut({ messages, from: 0, protectFrom: messages.length, budgetTokens: 5000, output }),
      ).toBe(-1);
      // A current turn over the budget alone: every older output is cut.
      expect(await toolOutputBudgetCut({ messages, from: 0, protectFrom: 7, budgetTokens: 200, output })).toBe(6);
    },
  );

  it('never cuts an output it may not replace, and counts it among those kept', async () => {
    const { messages, outputs } = outputsView([
      { tokens: 300, trimmable: true },
      { tokens: 500, trimmable: false },
      { tokens: 300, trimmable: true },
    ]);
    expect(
      await toolOutputBudgetCut({
        messages,
        from: 0,
        protectFrom: messages.length,
        budgetTokens: 700,
        output: (position) => outputs.get(position)!,
      }),
    ).toBe(2);
  });

  it(
    'cuts at the newest replaceable output that does not fit beside the newer ones, never in the current ' + 'turn',
    async () => {
      const size = fc.record({ tokens: fc.integer({ min: 1, max: 500 }), trimmable: fc.boolean() });
      await fc.assert(
        fc.asyncProperty(
          fc.array(size, { maxLength: 12 }),
          fc.integer({ min: 0, max: 3000 }),
          fc.nat(12),
          async (sizes, budget, protectedOutputs) => {
            const { messages, outputs } = outputsView(sizes);
            const protectFrom = Math.max(1, messages.length - 2 * protectedOutputs);
            const cut = await toolOutputBudgetCut({
              messages,
              from: 0,
              protectFrom,
              budgetTokens: budget,
              output: (position) => outputs.get(position)!,
            });
            // Newest first: the current turn's outputs count, then each older one up to the cut; every
            // replaceable one kept fit beside those newer than it.
            let running = 0;
            for (const position of [...outputs.keys()].sort((a, b) => b - a)) {
              const output = outputs.get(position)!;
              if (position === cut) {
                expect(output.trimmable).toBe(true);
                expect(position).toBeLessThan(protectFrom);
                expect(running + output.budgetTokens).toBeGreaterThan(budget);
                return;
              }
              running += output.budgetTokens;
              if (position < protectFrom && output.trimmable) expect(running).toBeLessThanOrEqual(budget);
            }
            expect(cut).toBe(-1);
          },
        ),
      );
    },
  );
});

describe('toolOutputBudgetTokens', () => {
  it('is contextBudgetTokens when set, else a quarter of the window between 20,000 and 60,000', () => {
    expect(toolOutputBudgetTokens(1500.7, 128_000)).toBe(1500);
    expect(toolOutputBudgetTokens(0, 128_000)).toBe(0);
    expect(toolOutputBudgetTokens(null, 16_384)).toBe(20_000);
    expect(toolOutputBudgetTokens(null, 128_000)).toBe(32_000);
    expect(toolOutputBudgetTokens(null, 1_000_000)).toBe(60_000);
    fc.assert(
      fc.property(fc.integer({ min: 256, max: 2_000_000 }), (window) => {
        const budget = toolOutputBudgetTokens(null, window);
        expect(budget).toBeGreaterThanOrEqual(20_000);
        expect(budget).toBeLessThanOrEqual(60_000);
        if (window >= 80_000 && window < 240_000) expect(budget).toBe(Math.floor(window / 4));
      }),
    );
  });
});
