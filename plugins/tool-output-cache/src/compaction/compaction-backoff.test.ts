import { CompactionBackoff } from './compaction-backoff';

describe('CompactionBackoff', () => {
  const anchor = { full: 10, adopted: 3 };

  it('waits retryAfterTokens after an attempt that reached its target, however many missed before', () => {
    const backoff = new CompactionBackoff({ retryAfterTokens: 1000, factor: 2, maxTokens: 100_000 });
    expect([backoff.waitTokens, backoff.anchorFor('full')]).toEqual([0, undefined]);
    backoff.record(false, anchor);
    backoff.record(false, anchor);
    backoff.record(true, anchor);
    expect([backoff.waitTokens, backoff.missedAttempts]).toEqual([1000, 0]);
  });

  it('multiplies the wait by the factor with each attempt in a row without progress, up to the cap', () => {
    const backoff = new CompactionBackoff({ retryAfterTokens: 1000, factor: 3, maxTokens: 20_000 });
    const waits: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(backoff.nextWait(false)).toBe(Math.min(20_000, 1000 * 3 ** attempt));
      backoff.record(false, anchor);
      waits.push(backoff.waitTokens);
    }
    expect(waits).toEqual([1000, 3000, 9000, 20_000, 20_000]);
    expect(backoff.missedAttempts).toBe(5);
  });

  it('remembers where the history stood in each form, and forgets it all on reset', () => {
    const backoff = new CompactionBackoff({ retryAfterTokens: 1000, factor: 2, maxTokens: 100_000 });
    backoff.record(true, anchor);
    expect([backoff.anchorFor('full'), backoff.anchorFor('none'), backoff.anchorFor('adopted')]).toEqual([10, 10, 3]);
    backoff.reset();
    expect([backoff.anchorFor('full'), backoff.waitTokens, backoff.missedAttempts]).toEqual([undefined, 0, 0]);
  });

  it('gives back what it knew through a JSON snapshot, and counts a restored undo as a refused attempt', () => {
    const backoff = new CompactionBackoff({ retryAfterTokens: 1000, factor: 2, maxTokens: 100_000 });
    backoff.record(false, anchor);
    const snapshot = JSON.parse(JSON.stringify(backoff.snapshot())) as ReturnType<CompactionBackoff['snapshot']>;
    backoff.record(true, { full: 40, adopted: 5 });
    backoff.restore(snapshot);
    expect([
      backoff.waitTokens,
      backoff.missedAttempts,
      backoff.anchorFor('full'),
      backoff.anchorFor('adopted'),
    ]).toEqual([1000, 1, 10, 3]);
    backoff.record(false, { full: 12, adopted: 12 });
    expect([backoff.waitTokens, backoff.missedAttempts]).toEqual([2000, 2]);
    const fresh = new CompactionBackoff({ retryAfterTokens: 1000, factor: 2, maxTokens: 100_000 });
    fresh.restore(new CompactionBackoff({ retryAfterTokens: 1, factor: 2, maxTokens: 1 }).snapshot());
    expect(fresh.anchorFor('full')).toBeUndefined();
  });
});
