import { createTokenCounter, CtxkitEventBus, MemoryContextStore, type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { CachedOutputs } from '../cache/cached-outputs';
import { ToolOutputCache } from '../cache/tool-output-cache';
import { exchange, output } from '../test-support';
import { resolveToolOutputCacheStrategyConfig, type ToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import type { ViewEntry } from './view-entry';
import { WorkingViewBuilder } from './working-view';

const counter = createTokenCounter({ model: 'gpt-4o' });

function builder(config: ToolOutputCacheStrategyConfig = {}, toolOutputBudget = 100_000) {
  const store = new MemoryContextStore();
  const resolved = resolveToolOutputCacheStrategyConfig(config);
  const cache = new ToolOutputCache({ store, agentId: 'agent', sessionId: 'session', maxMessageBytes: resolved.toolOutputCache.maxMessageBytes, maxLineLength: resolved.toolOutputCache.maxLineLength });
  const outputs = new CachedOutputs({ cache, counter, events: new CtxkitEventBus(), eventBase: (turn) => ({ agentId: 'agent', sessionId: 'session', strategyId: 'test', turn }) });
  const ensure = jest.spyOn(outputs, 'ensure');
  return { views: new WorkingViewBuilder({ config: resolved, counter, outputs, toolOutputBudget }), ensure };
}

/** Tokens of one log output of {@link history} as a tool message. */
const logTokens = (): number => counter.countMessage({ role: 'tool', tool_call_id: 'c0', content: output('log0', 20) }) + 40;

const entriesOf = (messages: ReadonlyArray<ChatMessage>, from = 0): ViewEntry[] => messages.slice(from).map((message, index) => ({ message, source: from + index }));

function history(): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
  for (let index = 0; index < 4; index++) messages.push(...exchange(`c${index}`, output(`log${index}`, 20)));
  messages.push({ role: 'user', content: 'Fix it.' });
  return messages;
}

describe('WorkingViewBuilder', () => {
  describe('#build', () => {
    it('shows each output as a copy with its ref, the same copy from call to call, and leaves the caller history alone', async () => {
      const { views } = builder();
      const given = history();
      const first = await views.build(entriesOf(given), 1);
      const second = await views.build(entriesOf(given), 1);
      const tools = first.entries.filter((entry) => entry.message.role === 'tool');
      expect(tools).toHaveLength(4);
      expect(tools.every((entry) => (entry.message as ToolMessage).output_ref?.id.startsWith('to_'))).toBe(true);
      expect(second.entries.map((entry) => entry.message)).toEqual(first.entries.map((entry) => entry.message));
      second.entries.forEach((entry, index) => expect(entry.message).toBe(first.entries[index]!.message));
      expect(given.some((message) => message.role === 'tool' && message.output_ref)).toBe(false);
      expect([first.newlyCached, second.newlyCached]).toEqual([4, 0]);
      expect(views.hidesOutput(first.entries.map((entry) => entry.message), 0)).toBe(false);
    });

    it('trims the oldest outputs to the tool output budget, never the current turn', async () => {
      const given = [...history(), ...exchange('now', output('current', 40))];
      const { views } = builder({}, 2 * logTokens());
      const view = await views.build(entriesOf(given), 2);
      const contents = view.entries.filter((entry) => entry.message.role === 'tool').map((entry) => String(entry.message.content));
      const trimmed = contents.filter((content) => content.startsWith('[tool output trimmed; ref=to_'));
      // Oldest first: the current turn's output takes nearly the whole budget, so all four older ones give way.
      expect(contents.slice(0, 4)).toEqual(trimmed);
      expect(contents[4]).toBe(output('current', 40));
      expect(view.log.list().filter((record) => record.action === 'trimmed').map((record) => record.from)).toEqual([2, 4, 6, 8]);
      expect(views.hidesOutput(view.entries.map((entry) => entry.message), 0)).toBe(true);
    });
  });

  describe('#rebase', () => {
    it('re-lays a view over a compacted mapping from what it cached, without caching again', async () => {
      const { views, ensure } = builder({}, 2 * logTokens() + 10);
      const given = history();
      const view = await views.build(entriesOf(given), 1);
      expect(ensure).toHaveBeenCalledTimes(4);
      expect(view.log.list().some((record) => record.action === 'trimmed')).toBe(true);
      const summary: ViewEntry = { message: { role: 'user', content: 'summary' }, source: null };
      const rebased = views.rebase(view, [summary, ...entriesOf(given, 5)]);
      expect(ensure).toHaveBeenCalledTimes(4);
      expect(rebased.entries[0]).toBe(summary);
      // Fewer outputs now: the budget no longer trims what it trimmed in the full view.
      for (const entry of rebased.entries.slice(1)) {
        const before = view.entries.find((candidate) => candidate.source === entry.source)!;
        if (entry.message.role === 'tool') expect(String(entry.message.content)).toBe(output(`log${(entry.source! - 2) / 2}`, 20));
        else expect(entry.message).toBe(before.message);
      }
      expect(rebased.log.list().every((record) => record.from >= 5)).toBe(true);
      expect(rebased.newlyCached).toBe(view.newlyCached);
    });
  });
});
