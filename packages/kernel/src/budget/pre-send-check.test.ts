import { BudgetExceededError, type ChatMessage, type IContextManager, type LLMPayload } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { testCounter } from '../__fixtures__/budget-test-agent';
import { preSendCheck } from './pre-send-check';

/** A conversation of `turns` turns: a user message, 0–2 tool exchanges, an answer; sizes vary by turn. */
function conversation(turns: Array<{ words: number; tools: number }>): ChatMessage[] {
  const history: ChatMessage[] = [];
  turns.forEach((turn, index) => {
    history.push({ role: 'user', content: `Question ${index}: ${'bags seats meals '.repeat(turn.words)}` });
    for (let call = 0; call < turn.tools; call++) {
      const id = `call_${index}_${call}`;
      history.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      });
      history.push({ role: 'tool', tool_call_id: id, content: `result ${id}: ${'row '.repeat(turn.words)}` });
    }
    history.push({ role: 'assistant', content: `Answer ${index}.` });
  });
  history.push({ role: 'user', content: 'And the newest question?' });
  return history;
}

const manager: IContextManager = {
  composePayload: async () => {
    throw new Error('not asked: no compaction hooks');
  },
  onTurnComplete: async () => undefined,
};

/** The check of `payload` under `limit` (also the window), with a manager that cannot compact. */
function check(payload: LLMPayload, history: ChatMessage[], limit: number, dropOldestTurns?: boolean) {
  return preSendCheck({
    payload,
    history,
    manager,
    counter: testCounter,
    limit,
    contextWindow: limit,
    strategyId: 'test',
    call: 0,
    flagged: false,
    recompose: async () => payload,
    ...(dropOldestTurns === undefined ? {} : { dropOldestTurns }),
  });
}

describe('preSendCheck', () => {
  describe('trim-old-tool-results', () => {
    it('summarises each old result under its own call and records its own position, when ids repeat', async () => {
      // Some servers number each reply's calls from call_0: every step's call has the same id.
      const read = (path: string): ChatMessage => ({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } },
        ],
      });
      const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index}`).join('\n');
      const history: ChatMessage[] = [
        { role: 'user', content: 'Read the three files.' },
        read('a.go'),
        { role: 'tool', tool_call_id: 'call_0', content: lines(300) },
        read('b.go'),
        { role: 'tool', tool_call_id: 'call_0', content: lines(200) },
        read('c.go'),
        { role: 'tool', tool_call_id: 'call_0', content: lines(10) },
      ];
      const payload: LLMPayload = {
        messages: [{ role: 'system', content: 'You read code.' }, ...history],
        tools: [],
        stats: undefined as unknown as LLMPayload['stats'],
      };
      // Trimming a.go alone is not enough: b.go goes too; c.go is the newest step's.
      const limit = testCounter.countMessages(payload.messages) - testCounter.countMessage(history[2]!) - 50;
      const result = await check(payload, history, limit);
      const sent = result.payload.messages.filter((message) => message.role === 'tool').map((m) => m.content);
      expect(sent[0]).toMatch(/^\[Read: a\.go \(300 lines, Go\)/);
      expect(sent[1]).toMatch(/^\[Read: b\.go \(200 lines, Go\)/);
      expect(sent[2]).toBe(lines(10));
      expect(result.reductions.map((record) => [record.action, record.from])).toEqual([
        ['trimmed', 2],
        ['trimmed', 4],
      ]);
    });
  });

  describe('dropOldestTurns', () => {
    it(
      'fits any conversation under the line by whole turns, keeping the system messages and the newest turn, or ' +
        'refuses',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.record({ words: fc.integer({ min: 1, max: 60 }), tools: fc.integer({ min: 0, max: 2 }) }), {
              minLength: 1,
              maxLength: 12,
            }),
            fc.double({ min: 0.05, max: 1.2, noNaN: true }),
            async (turns, share) => {
              const history = conversation(turns);
              const system: ChatMessage[] = [
                { role: 'system', content: 'You are an airline agent.' },
                { role: 'system', content: 'Summary: the user flies to Denver.' },
              ];
              const payload: LLMPayload = {
                messages: [...system, ...history],
                tools: [],
                stats: undefined as unknown as LLMPayload['stats'],
              };
              const before = testCounter.countMessages(payload.messages);
              const limit = Math.floor(before * share);
              const newest = history[history.length - 1]!;
              const outcome = await check(payload, history, limit, true).then(
                (result) => result,
                (error: unknown) => error,
              );
              if (outcome instanceof BudgetExceededError) {
                // Refused only when even the system messages and the newest turn alone do not fit.
                expect(testCounter.countMessages([...system, newest])).toBeGreaterThan(limit);
                return;
              }
              const result = outcome as Awaited<ReturnType<typeof preSendCheck>>;
              const sent = result.payload.messages;
              expect(testCounter.countMessages(sent)).toBeLessThanOrEqual(limit);
              expect(findPayloadProblems(sent)).toEqual([]);
              expect(sent.slice(0, 2)).toEqual(system);
              expect(sent[sent.length - 1]).toBe(newest);
              // What is left of the history is its newest part, by whole turns (it starts at a user message);
              // tool results in it may have been trimmed by the earlier steps, everything else is as it was.
              const kept = sent.slice(2);
              const suffix = history.slice(history.length - kept.length);
              expect(kept[0]!.role).toBe('user');
              kept.forEach((message, index) => {
                if (message.role === 'tool')
                  expect(message.tool_call_id).toBe((suffix[index] as { tool_call_id?: string }).tool_call_id);
                else expect(message).toBe(suffix[index]);
              });
              for (const reduction of result.reductions.filter((record) => record.action === 'dropped'))
                expect(reduction.to).toBeLessThanOrEqual(history.length - kept.length);
            },
          ),
          { numRuns: 60 },
        );
      },
    );

    it('keeps a memory block sent as a user message before the history, as it keeps the system messages', async () => {
      const history = conversation([
        { words: 40, tools: 1 },
        { words: 40, tools: 0 },
        { words: 40, tools: 0 },
      ]);
      const summary: ChatMessage = {
        role: 'user',
        content:
          'A summary of the earlier conversation follows.\n<conversation_summary>The user flies to ' +
          'Denver.</conversation_summary>',
      };
      const system: ChatMessage = { role: 'system', content: 'You are an airline agent.' };
      const payload: LLMPayload = {
        messages: [system, summary, ...history],
        tools: [],
        stats: undefined as unknown as LLMPayload['stats'],
      };
      const limit = testCounter.countMessages(payload.messages) - testCounter.countMessages(history.slice(0, 3)) + 10;
      const result = await check(payload, history, limit, true);
      const sent = result.payload.messages;
      expect(sent.slice(0, 2)).toEqual([system, summary]);
      expect(sent[2]!.role).toBe('user');
      expect(sent.length).toBeLessThan(payload.messages.length);
      expect(testCounter.countMessages(sent)).toBeLessThanOrEqual(limit);
      expect(findPayloadProblems(sent)).toEqual([]);
    });

    it('is off by default: the check refuses rather than leave turns out', async () => {
      const history = conversation([
        { words: 40, tools: 0 },
        { words: 40, tools: 0 },
      ]);
      const payload: LLMPayload = {
        messages: [{ role: 'system', content: 'You help.' }, ...history],
        tools: [],
        stats: undefined as unknown as LLMPayload['stats'],
      };
      const limit = Math.floor(testCounter.countMessages(payload.messages) / 2);
      await expect(check(payload, history, limit)).rejects.toBeInstanceOf(BudgetExceededError);
    });
  });
});
