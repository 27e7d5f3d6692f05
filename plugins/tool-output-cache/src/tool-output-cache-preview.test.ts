import { type ChatMessage, type LLMPayload, MemoryContextStore, type ReductionPreview } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { exchange, longHistory, output, strategyOn, SUMMARY_REPLY } from './test-support';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

const SYSTEM = 'You are a coding agent.';
const WRITES = ['set', 'setIfVersion', 'delete', 'putBlob', 'appendBlob', 'deleteBlob'] as const;

/** A store that counts its writes. */
function countingStore(): { store: MemoryContextStore; writes: () => number } {
  const store = new MemoryContextStore();
  const spies = WRITES.map((name) => jest.spyOn(store, name));
  return { store, writes: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0) };
}

/**
 * A conversation with unique tool call ids: per turn a user message, `exchanges[turn]` tool exchanges of the given line
 * counts, an answer.
 */
function conversation(turns: number[][], label = 't'): ChatMessage[] {
  const history: ChatMessage[] = [];
  turns.forEach((lines, turn) => {
    history.push({ role: 'user', content: `Turn ${turn}: look at the next files.` });
    lines.forEach((count, index) =>
      history.push(
        ...exchange(
          `${label}${turn}x${index}`,
          output(`${label}${turn}-${index}`, count),
          index % 2 ? 'read_file' : 'execute_bash',
        ),
      ),
    );
    history.push({ role: 'assistant', content: `Done with turn ${turn}.` });
  });
  history.push({ role: 'user', content: 'What next?' });
  return history;
}

/**
 * What a payload did to `history`, read off the payload itself: the messages it leaves out, and the tool outputs it
 * sends otherwise than whole.
 */
function observed(payload: LLMPayload, history: ReadonlyArray<ChatMessage>): { dropped: number[]; trimmed: number[] } {
  const sent = new Set<ChatMessage>(payload.messages);
  const tools = new Map<string, ChatMessage>();
  for (const message of payload.messages) if (message.role === 'tool') tools.set(message.tool_call_id, message);
  const dropped: number[] = [];
  const trimmed: number[] = [];
  history.forEach((message, index) => {
    if (message.role !== 'tool') {
      if (!sent.has(message)) dropped.push(index);
      return;
    }
    const shown = tools.get(message.tool_call_id);
    if (!shown) dropped.push(index);
    else if (shown.content !== message.content) trimmed.push(index);
  });
  return { dropped, trimmed };
}

const indexes = (preview: ReductionPreview) => ({
  dropped: preview.dropped.map((item) => item.index),
  trimmed: preview.trimmed.map((item) => item.index),
});

describe('preview', () => {
  const tight: ToolOutputCacheStrategyConfig = {
    maxContextTokens: 6000,
    toolOutputCache: { contextBudgetTokens: 2500 },
    compaction: { enabled: false },
  };

  it(
    'changes nothing: no event, no store write, and the next payload is the one a twin that was not asked ' +
      'composes',
    async () => {
      const first = conversation([[20, 30], [10, 40, 25], [35]]);
      const next = conversation([[20, 30], [10, 40, 25], [35], [30, 30], [50]]).map((message, index) =>
        index < first.length - 1 ? first[index]! : message,
      );
      const asked = countingStore();
      const twin = countingStore();
      const a = strategyOn(tight, { store: asked.store });
      const b = strategyOn(tight, { store: twin.store });
      await a.strategy.composePayload(SYSTEM, first, []);
      await b.strategy.composePayload(SYSTEM, first, []);
      // The outputs a payload caches are written once it is returned.
      await a.strategy.whenIdle();
      const [events, writes] = [a.events.length, asked.writes()];

      const preview = await a.strategy.preview(SYSTEM, next, []);
      expect(preview.trimmed.length).toBeGreaterThan(0);
      expect(a.events.length).toBe(events);
      expect(asked.writes()).toBe(writes);

      const payload = await a.strategy.composePayload(SYSTEM, next, []);
      expect(JSON.stringify(payload)).toBe(JSON.stringify(await b.strategy.composePayload(SYSTEM, next, [])));
      expect(a.events.slice(events).map((event) => event.name)).toEqual(
        b.events.slice(events).map((event) => event.name),
      );
      expect(await a.strategy.epochs()).toEqual(await b.strategy.epochs());
    },
  );

  it(
    'names what the next payload then does: the messages it leaves out, the outputs it trims, its ' + 'tokens',
    async () => {
      const history = conversation([[30, 30], [40, 25, 20], [35], [30]]);
      const { strategy } = strategyOn(tight);
      const preview = await strategy.preview(SYSTEM, history, []);
      const payload = await strategy.composePayload(SYSTEM, history, []);
      expect(indexes(preview)).toEqual(observed(payload, history));
      expect(preview.dropped.length + preview.trimmed.length).toBeGreaterThan(0);
      expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
      expect(preview.compacted).toEqual([]);
      expect(preview.folded).toEqual([]);
      const item = preview.trimmed[0]!;
      expect(item).toMatchObject({ role: 'tool', tokens: expect.any(Number) });
      expect(history[item.index]!.content).toEqual(
        expect.stringContaining(item.excerpt.replace(/…$/, '').split(' ').slice(0, 3).join(' ')),
      );
    },
  );

  it('names the messages a pending compact request would replace, without calling the model', async () => {
    const llm = new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true });
    // A run of many turns, then one long single-turn run (its user message is carried, not replaced).
    for (const history of [
      longHistory(4, 10),
      [
        { role: 'user', content: 'Fix it.' } as ChatMessage,
        ...exchange('a', output('a', 10)),
        ...exchange('b', output('b', 10)),
        ...exchange('c', output('c', 10)),
      ],
    ]) {
      const { strategy } = strategyOn({ maxContextTokens: 8000 }, { llm });
      strategy.requestCompaction();
      const preview = await strategy.preview(SYSTEM, history, []);
      expect(llm.requests).toHaveLength(0);
      expect(preview.notes[0]).toMatch(/would compact \(manual: a compact request is pending\)/);
      expect((await strategy.checkCompaction('before-return', history)).compacted).toBe(true);
      const state = strategy.compactionState!;
      const replaced = Array.from({ length: state.keepFrom }, (_, index) => index).filter(
        (index) => index !== state.carriedSource,
      );
      expect(preview.compacted.map((item) => item.index)).toEqual(replaced);
      llm.requests.length = 0;
    }
  });

  it('says when automatic compaction is due on the threshold, and when it waits after an undo', async () => {
    const llm = new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true });
    const history = longHistory(12, 40);
    const { strategy } = strategyOn({ maxContextTokens: 8000 }, { llm });
    const preview = await strategy.preview(SYSTEM, history, []);
    expect(preview.notes[0]).toMatch(/would compact \(auto: the context/);
    expect(preview.compacted.length).toBeGreaterThan(0);
    expect(llm.requests).toHaveLength(0);
    await strategy.composePayload(SYSTEM, history, []);
    expect(strategy.compactionState?.keepFrom).toBe(preview.compacted.length);
    const undone = await strategy.undo((await strategy.epochs()).find((epoch) => epoch.kind === 'compaction')!.id);
    const waiting = await strategy.preview(SYSTEM, undone.history!, []);
    expect(waiting.compacted).toEqual([]);
    expect(waiting.notes[0]).toMatch(/^automatic compaction waits until the history grows by [\d,]+ more tokens$/);
  });

  it(
    'holds for any conversation and budget: the preview changes nothing and names what the payload then ' + 'does',
    async () => {
      const turns = fc.array(fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 0, maxLength: 3 }), {
        minLength: 1,
        maxLength: 6,
      });
      await fc.assert(
        fc.asyncProperty(
          turns,
          turns,
          fc.integer({ min: 2500, max: 12_000 }),
          fc.constantFrom<'under-pressure' | 'always'>('under-pressure', 'always'),
          async (before, added, maxContextTokens, when) => {
            const config: ToolOutputCacheStrategyConfig = {
              maxContextTokens,
              microCompact: { when, minContentLength: 50 },
              compaction: { enabled: false },
            };
            const first = conversation(before, 'p');
            const next = [...first, ...conversation(added, 'n')];
            const asked = countingStore();
            const a = strategyOn(config, { store: asked.store });
            const b = strategyOn(config);
            await a.strategy.composePayload(SYSTEM, first, []);
            await b.strategy.composePayload(SYSTEM, first, []);
            await a.strategy.whenIdle();
            const [events, writes] = [a.events.length, asked.writes()];
            const preview = await a.strategy.preview(SYSTEM, next, []);
            expect([a.events.length, asked.writes()]).toEqual([events, writes]);
            const payload = await a.strategy.composePayload(SYSTEM, next, []);
            expect(JSON.stringify(payload)).toBe(JSON.stringify(await b.strategy.composePayload(SYSTEM, next, [])));
            expect(indexes(preview)).toEqual(observed(payload, next));
            expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
          },
        ),
        { numRuns: 25 },
      );
    },
  );
});
