import { ContextOverflowError } from '@ctxkit/core';
import fc from 'fast-check';

import { OVERFLOW_RETRY_SHARE, overflowRetryLimit } from './overflow-retry-limit';

const overflow = (limit?: number, actual?: number) =>
  new ContextOverflowError({
    client: 'test',
    providerMessage: 'too long',
    ...(limit !== undefined ? { limit } : {}),
    ...(actual !== undefined ? { actual } : {}),
  });

describe('overflowRetryLimit', () => {
  it("is the provider's limit less the answer's reservation, in the agent's tokens", () => {
    // The provider counted 5,200 where the agent counted 5,000: its limit shrinks by the same ratio.
    expect(
      overflowRetryLimit({
        overflow: overflow(4096, 5200),
        sentTokens: 5000,
        previousLimit: 13_400,
        reserveOutputTokens: 1000,
      }),
    ).toBe(Math.floor((4096 - 1000) * (5000 / 5200)));
    // A provider counting fewer tokens than the agent does not raise the limit.
    expect(
      overflowRetryLimit({
        overflow: overflow(4096, 4500),
        sentTokens: 5000,
        previousLimit: undefined,
        reserveOutputTokens: 1000,
      }),
    ).toBe(3096);
    expect(
      overflowRetryLimit({
        overflow: overflow(4096),
        sentTokens: 5000,
        previousLimit: undefined,
        reserveOutputTokens: 0,
      }),
    ).toBe(4096);
  });

  it("is 85% of the refused payload's budget without numbers, or of what was sent when that was less", () => {
    expect(OVERFLOW_RETRY_SHARE).toBe(0.85);
    expect(
      overflowRetryLimit({ overflow: overflow(), sentTokens: 5000, previousLimit: 4000, reserveOutputTokens: 500 }),
    ).toBe(3400);
    expect(
      overflowRetryLimit({ overflow: overflow(), sentTokens: 3000, previousLimit: 4000, reserveOutputTokens: 500 }),
    ).toBe(2550);
    expect(
      overflowRetryLimit({
        overflow: overflow(),
        sentTokens: 3000,
        previousLimit: undefined,
        reserveOutputTokens: 500,
      }),
    ).toBe(2550);
  });

  it('falls back to 85% when the numbers would not make the payload smaller', () => {
    // A limit above what was sent (another tokenizer, another model): the numbers say nothing usable.
    expect(
      overflowRetryLimit({
        overflow: overflow(128_000, 3000),
        sentTokens: 3000,
        previousLimit: 3500,
        reserveOutputTokens: 1000,
      }),
    ).toBe(2550);
    // A limit below the answer's reservation.
    expect(
      overflowRetryLimit({ overflow: overflow(512), sentTokens: 3000, previousLimit: 3500, reserveOutputTokens: 1000 }),
    ).toBe(2550);
  });

  it('always asks for a smaller payload than the one refused', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 100_000 }),
        (sentTokens, limit, actual, previousLimit, reserveOutputTokens) => {
          const retry = overflowRetryLimit({
            overflow: overflow(limit, actual),
            sentTokens,
            previousLimit,
            reserveOutputTokens,
          });
          expect(Number.isInteger(retry)).toBe(true);
          expect(retry).toBeGreaterThanOrEqual(0);
          expect(retry).toBeLessThan(sentTokens);
        },
      ),
    );
  });
});
