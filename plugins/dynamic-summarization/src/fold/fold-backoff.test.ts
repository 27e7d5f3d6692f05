import fc from 'fast-check';

import { FoldBackoff } from './fold-backoff';

describe('FoldBackoff', () => {
  it('allows one attempt per turn', () => {
    const backoff = new FoldBackoff({ maxConsecutiveFailures: 3, retryBackoffMs: 0 });
    expect(backoff.attemptedIn(4)).toBe(false);
    backoff.attempting(4);
    expect(backoff.attemptedIn(4)).toBe(true);
    expect(backoff.attemptedIn(5)).toBe(false);
  });

  it('doubles the wait after each failure in a row, and a success clears it', () => {
    const backoff = new FoldBackoff({ maxConsecutiveFailures: 5, retryBackoffMs: 1000 });
    expect(backoff.failed('a', 0)).toEqual({ consecutiveFailures: 1, retryAt: 1000 });
    expect(backoff.mayAttempt('a', () => 999)).toBe(false);
    expect(backoff.mayAttempt('a', () => 1000)).toBe(true);
    expect(backoff.failed('a', 1000)).toEqual({ consecutiveFailures: 2, retryAt: 3000 });
    expect(backoff.failed('a', 3000)).toEqual({ consecutiveFailures: 3, retryAt: 7000 });
    backoff.succeeded();
    expect(backoff.consecutiveFailures).toBe(0);
    expect(backoff.mayAttempt('a', () => 0)).toBe(true);
  });

  it('stops after maxConsecutiveFailures for that batch, without reading the clock, until the batch changes', () => {
    const backoff = new FoldBackoff({ maxConsecutiveFailures: 2, retryBackoffMs: 10 });
    backoff.failed('batch-1', 0);
    expect(backoff.failed('batch-1', 100)).toEqual({ consecutiveFailures: 2, retryAt: null });
    expect(backoff.stopped).toBe(true);
    const clock = jest.fn(() => 1e12);
    expect(backoff.mayAttempt('batch-1', clock)).toBe(false);
    expect(clock).not.toHaveBeenCalled();
    // Another batch (edited history, or a new summary version): attempts resume with a clean count.
    expect(backoff.mayAttempt('batch-2', clock)).toBe(true);
    expect(backoff.stopped).toBe(false);
    expect(backoff.consecutiveFailures).toBe(0);
  });

  it('reset forgets failures, back-off and a stop', () => {
    const backoff = new FoldBackoff({ maxConsecutiveFailures: 1, retryBackoffMs: 1000 });
    backoff.failed('a', 0);
    backoff.reset();
    expect(backoff.stopped).toBe(false);
    expect(backoff.mayAttempt('a', () => 0)).toBe(true);
  });

  it('never allows an attempt before the back-off of the last failure, and stops exactly at the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 6, maxLength: 6 }),
        (max, backoffMs, gaps) => {
          const backoff = new FoldBackoff({ maxConsecutiveFailures: max, retryBackoffMs: backoffMs });
          let now = 0;
          for (let failures = 1; failures <= max; failures++) {
            const failure = backoff.failed('same', now);
            expect(failure.consecutiveFailures).toBe(failures);
            if (failures < max) {
              expect(failure.retryAt).toBe(now + backoffMs * 2 ** (failures - 1));
              expect(backoff.mayAttempt('same', () => failure.retryAt! - 1)).toBe(false);
              expect(backoff.mayAttempt('same', () => failure.retryAt!)).toBe(true);
            } else {
              expect(failure.retryAt).toBeNull();
              expect(backoff.mayAttempt('same', () => Number.MAX_SAFE_INTEGER)).toBe(false);
            }
            now = Math.max(now, failure.retryAt ?? now) + gaps[failures - 1]!;
          }
        },
      ),
    );
  });
});
