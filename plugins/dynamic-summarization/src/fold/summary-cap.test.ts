import { memoryAllowance } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { SUMMARY_WRAPPER_TOKENS } from '../summary-block';
import { MIN_SUMMARY_TOKENS, summaryCap, summaryTargetTokens } from './summary-cap';

describe('summaryCap', () => {
  it('is summaryMaxTokens when configured', () => {
    expect(
      summaryCap({ summaryMaxTokens: 300, memoryShare: 0.5, available: 10_000, room: { room: 100, allowance: 50 } }),
    ).toBe(300);
  });

  it(
    'is the share of the last room less the wrapper, else the share of the whole budget, never below the ' + 'minimum',
    () => {
      expect(
        summaryCap({
          summaryMaxTokens: null,
          memoryShare: 0.5,
          available: 10_000,
          room: { room: 2000, allowance: 1000 },
        }),
      ).toBe(1000 - SUMMARY_WRAPPER_TOKENS);
      expect(summaryCap({ summaryMaxTokens: null, memoryShare: 0.5, available: 10_000, room: undefined })).toBe(
        memoryAllowance(10_000, 0.5) - SUMMARY_WRAPPER_TOKENS,
      );
      expect(
        summaryCap({ summaryMaxTokens: null, memoryShare: 0.5, available: 10_000, room: { room: 60, allowance: 30 } }),
      ).toBe(MIN_SUMMARY_TOKENS);
    },
  );
});

describe('summaryTargetTokens', () => {
  it('stays within the cap and below what the summary replaces, and grows by half the batch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        (cap, previous, batch) => {
          const target = summaryTargetTokens(cap, previous, batch);
          expect(target).toBeGreaterThanOrEqual(1);
          expect(target).toBeLessThanOrEqual(Math.max(1, cap));
          if (previous + batch > 1) expect(target).toBeLessThan(previous + batch);
          if (cap >= previous + batch)
            expect(target).toBe(
              Math.max(1, Math.min(previous + batch - 1, Math.max(128, previous + Math.floor(batch / 2)))),
            );
        },
      ),
    );
  });
});
