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
  it(
    'lets an earlier summary of the session stand for a newer one, never a newer or wider one, nor another kind of ' +
      'block',
    () => {
      const newer = summaryMemoryBlock({ ...state('v2 text'), version: 2, coveredMessages: 12 }, counter);
      const earlier = summaryMemoryBlock({ ...state('v1 text'), version: 1, coveredMessages: 8 }, counter);
      expect(newer.holds!(earlier)).toBe(true);
      expect(earlier.holds!(newer)).toBe(false);
      expect(newer.holds!(summaryMemoryBlock({ ...state('other v2'), version: 2 }, counter))).toBe(false);
      expect(newer.holds!(summaryMemoryBlock({ ...state('v1 wider'), version: 1, coveredMessages: 20 }, counter))).toBe(
        false,
      );
      expect(newer.holds!({ name: 'summary', content: 'not a summary block' })).toBe(false);
    },
  );

  it('shortens to each room as a new block would, also when one block is asked again and again', () => {
    const summary = state(
      Array.from({ length: 60 }, (_, index) => `- Step ${index}: booked flight HAT${100 + index} for the user.`).join(
        '\n',
      ),
    );
    const block = summaryMemoryBlock(summary, counter);
    const rooms = [300, 300, 120, 300, 40, 40, 10, 300];
    expect(new Set(rooms.map((maxTokens) => block.shrink!(maxTokens))).size).toBeGreaterThan(2);
    for (const maxTokens of rooms) {
      expect(block.shrink!(maxTokens)).toBe(summaryMemoryBlock(summary, counter).shrink!(maxTokens));
    }
  });
});
