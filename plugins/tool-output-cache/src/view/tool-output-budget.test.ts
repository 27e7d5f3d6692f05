import type { ChatMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { type BudgetedOutput, toolOutputBudgetCut, toolOutputBudgetTokens } from './tool-output-budget';

const user: ChatMessage = { role: 'user', content: 'u' };
const call: ChatMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c', type: 'function', function: { name: 'run', arguments: '{}' } }],
};
const result: ChatMessage = { role: 'tool', tool_call_id: 'c', content: 'out' };

/** A history of tool outputs with the given sizes (a user message first), and its outputs by position. */
function view(sizes: ReadonlyArray<{ tokens: number; trimmable: boolean }>) {
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
      const { messages, outputs } = view([300, 300, 300, 300].map((tokens) => ({ tokens, trimmable: true })));
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
    const { messages, outputs } = view([
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
            const { messages, outputs } = view(sizes);
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
