import { FailureBackoff } from './failure-backoff';

describe('FailureBackoff', () => {
  it('doubles the wait with each failed call in a row, up to the cap, and starts over after a success', () => {
    const backoff = new FailureBackoff({ firstMs: 1000, maxMs: 5000 });
    expect([backoff.failedInARow, backoff.retryAt, backoff.waiting(() => 0)]).toEqual([0, null, false]);
    expect([1, 2, 3, 4].map(() => backoff.failed(10_000) - 10_000)).toEqual([1000, 2000, 4000, 5000]);
    expect(backoff.failedInARow).toBe(4);
    backoff.succeeded();
    expect([backoff.failedInARow, backoff.retryAt, backoff.failed(0)]).toEqual([0, null, 1000]);
  });

  it('waits until the time it set, reading the clock only while it waits', () => {
    const backoff = new FailureBackoff({ firstMs: 1000, maxMs: 60_000 });
    const now = jest.fn(() => 0);
    expect(backoff.waiting(now)).toBe(false);
    expect(now).not.toHaveBeenCalled();
    backoff.failed(500);
    expect([backoff.waiting(() => 1499), backoff.waiting(() => 1500)]).toEqual([true, false]);
  });
});
