import { computeBudget } from '../budget/compute-budget';
import type { ChatMessage } from '../contracts/chat-message';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { buildPayload } from './build-payload';
import { selectHistoryWindow } from './select-history-window';

const counter = createTokenCounter({ model: 'gpt-4o' });
const history: ChatMessage[] = Array.from({ length: 40 }, (_, index): ChatMessage =>
  index % 2 === 0
    ? { role: 'user', content: `question ${index} ${'words '.repeat(30)}` }
    : { role: 'assistant', content: `answer ${index}` },
);

describe('buildPayload', () => {
  it('assembles system, dynamic, memory and history in order with complete stats', () => {
    const budget = computeBudget({ contextWindow: 128_000, maxContextTokens: 1200 });
    const system: ChatMessage[] = [{ role: 'system', content: 'You are helpful.' }];
    const dynamic: ChatMessage[] = [{ role: 'system', content: 'Relevant context: flights.' }];
    const memory: ChatMessage[] = [{ role: 'system', content: 'Summary: earlier talk.' }];
    const tools = [{ type: 'function' as const, function: { name: 'search', parameters: { type: 'object' } } }];
    const fixed = counter.countMessages([...system, ...dynamic, ...memory]) + counter.countTools(tools);
    const window = selectHistoryWindow({ history, budgetTokens: budget.available - fixed, counter });
    let counted = 0;
    const payload = buildPayload({
      strategyId: 'test-strategy',
      model: 'gpt-4o',
      counter,
      budget,
      sections: { system, tools, dynamic, memory, history: window },
      historyLength: history.length,
      historyInputTokens: () => {
        counted++;
        return counter.countMessages(history);
      },
    });
    expect(payload.messages).toEqual([...system, ...dynamic, ...memory, ...window.messages]);
    expect(payload.tools).toEqual(tools);
    const { stats } = payload;
    expect(stats.output_tokens).toBe(counter.countMessages(payload.messages) + counter.countTools(payload.tools));
    expect(stats.output_tokens).toBeLessThanOrEqual(budget.available);
    expect(stats.budget).toMatchObject({
      used: stats.output_tokens,
      remaining: budget.available - stats.output_tokens,
    });
    expect(stats.sections.history).toBe(window.tokens);
    expect(stats.dropped).toBe(window.fromIndex);
    expect(stats.messages).toEqual({ input: 40, output: payload.messages.length });
    expect(stats.counter).toEqual(counter.meta());
    expect(counted).toBe(0);
    expect(stats.input_tokens).toBe(fixed + counter.countMessages(history));
    expect(stats.compress_ratio).toBeCloseTo(stats.output_tokens / stats.input_tokens, 12);
    expect(counted).toBe(1);
    expect(JSON.parse(JSON.stringify(stats)).input_tokens).toBe(stats.input_tokens);
  });
});
