import { networkErrorCode } from './network-error-code';
import { retryAfterMs } from './retry-after';

describe('what a provider failure says', () => {
  it(
    'reads the wait from retry-after-ms, retry-after seconds or an HTTP date, in Headers or a record of any ' + 'case',
    () => {
      expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
      expect(retryAfterMs({ 'Retry-After': '7' })).toBe(7000);
      const date = retryAfterMs({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() })!;
      expect(date).toBeGreaterThan(55_000);
      expect(date).toBeLessThanOrEqual(60_000);
      expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
      expect(retryAfterMs(undefined)).toBeUndefined();
    },
  );

  it('finds the system error code down the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(networkErrorCode(new Error('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
    expect(networkErrorCode(Object.assign(new Error('bad'), { code: 'invalid_api_key' }))).toBeUndefined();
    expect(networkErrorCode(null)).toBeUndefined();
  });
});
