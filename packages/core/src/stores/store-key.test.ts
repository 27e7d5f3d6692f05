import type { StoreKey } from '../contracts/context-store';
import { StoreKeyError } from '../errors/store-key-error';
import { assertStoreKey, assertStoreKeyPrefix, formatStoreKey } from './store-key';

const good: StoreKey = { agentId: 'support-agent', sessionId: 'conv-42', kind: 'summary', name: 'current' };

describe('assertStoreKey', () => {
  it('accepts letters, digits and . _ : @ -', () => {
    expect(() => assertStoreKey({ ...good, name: 'ref:call_1@v2.json-x' })).not.toThrow();
  });

  it.each([
    ['a slash', { ...good, name: 'a/b' }],
    ['a backslash', { ...good, sessionId: 'a\\b' }],
    ['a parent reference', { ...good, agentId: '..' }],
    ['two dots inside', { ...good, name: 'a..b' }],
    ['a leading dot', { ...good, name: '.hidden' }],
    ['an empty part', { ...good, sessionId: '' }],
    ['a space', { ...good, name: 'a b' }],
    ['a NUL byte', { ...good, name: 'a\u0000b' }],
    ['an over-long part', { ...good, name: 'x'.repeat(201) }],
    ['an unknown kind', { ...good, kind: 'secrets' as StoreKey['kind'] }],
    ['a non-string part', { ...good, agentId: 42 as unknown as string }],
  ])('rejects %s with StoreKeyError', (_label, key) => {
    expect(() => assertStoreKey(key)).toThrow(StoreKeyError);
    try {
      assertStoreKey(key);
    } catch (error) {
      expect((error as StoreKeyError).code).toBe('CTXKIT_STORE_KEY_INVALID');
    }
  });
});

describe('assertStoreKeyPrefix', () => {
  it('accepts an agent alone and validates optional parts when given', () => {
    expect(() => assertStoreKeyPrefix({ agentId: 'a' })).not.toThrow();
    expect(() => assertStoreKeyPrefix({ agentId: 'a', sessionId: '../x' })).toThrow(StoreKeyError);
    expect(() => assertStoreKeyPrefix({ agentId: 'a', kind: 'nope' as StoreKey['kind'] })).toThrow(StoreKeyError);
  });
});

describe('formatStoreKey', () => {
  it('joins the parts with slashes', () => {
    expect(formatStoreKey(good)).toBe('support-agent/conv-42/summary/current');
  });
});
