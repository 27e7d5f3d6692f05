import { backoffDelay, DEFAULT_RETRY_OPTIONS, isRetryableStatus, parseRetryAfter, resolveRetryOptions } from './retry-policy';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });

describe('retry-policy', () => {
  describe('#backoffDelay', () => {
    it('doubles up to the ceiling, with jitter between half and all of it', () => {
      const low = resolveRetryOptions({ random: () => 0 });
      const high = resolveRetryOptions({ random: () => 0.999 });
      expect([0, 1, 2, 3, 4, 5].map((r) => backoffDelay(r, low))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
      expect(backoffDelay(0, high)).toBe(499);
      expect(backoffDelay(10, high)).toBeLessThanOrEqual(DEFAULT_RETRY_OPTIONS.maxDelayMs);
    });
  });

  describe('#parseRetryAfter', () => {
    it('reads seconds, an HTTP date and retry-after-ms', () => {
      expect(parseRetryAfter(headers({ 'retry-after': '2' }))).toBe(2000);
      expect(parseRetryAfter(headers({ 'retry-after-ms': '150', 'retry-after': '9' }))).toBe(150);
      const now = Date.parse('2025-01-01T00:00:00Z');
      expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
      expect(parseRetryAfter(headers({}))).toBeUndefined();
      expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    });
  });

  describe('#isRetryableStatus', () => {
    it('retries 408, 409, 429 and 5xx only', () => {
      expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 503, 529].filter(isRetryableStatus)).toEqual([408, 409, 429, 500, 503, 529]);
    });
  });
});
