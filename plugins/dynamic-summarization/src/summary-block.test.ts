import { createTokenCounter } from '@ctxkit/core';
import { summaryMemoryBlock } from './summary-block';
import type { SummaryState } from './summary-state';

const counter = createTokenCounter({ model: 'gpt-4o' });

function state(text: string): SummaryState {
  return {
    format: 1,
    version: 2,
    text,
    coveredMessages: 12,
    coveredTurns: 3,
    fingerprint: '12:x',
    summaryTokens: counter.count(text),
    coveredTokens: 5000,
    summarizer: { name: 'offline-summarizer', model: 'offline', offline: true },
    updatedAt: 0,
  };
}

describe('summaryMemoryBlock', () => {
  it('shortens to each room as a new block would, also when one block is asked again and again', () => {
    const summary = state(Array.from({ length: 60 }, (_, index) => `- Step ${index}: booked flight HAT${100 + index} for the user.`).join('\n'));
    const block = summaryMemoryBlock(summary, counter);
    const rooms = [300, 300, 120, 300, 40, 40, 10, 300];
    expect(new Set(rooms.map((maxTokens) => block.shrink!(maxTokens))).size).toBeGreaterThan(2);
    for (const maxTokens of rooms) {
      expect(block.shrink!(maxTokens)).toBe(summaryMemoryBlock(summary, counter).shrink!(maxTokens));
    }
  });
});
