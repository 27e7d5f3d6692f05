import fc from 'fast-check';

import type { StoreKey } from '../contracts/context-store';
import { StoreKeyError } from '../errors/store-key-error';
import { assertStoreKey, assertStoreKeyPrefix, formatStoreKey } from './store-key';
import { decodeStoreKeyPart, encodeStoreKeyPart } from './store-key-part-encoding';

const good: StoreKey = { agentId: 'support-agent', sessionId: 'conv-42', kind: 'summary', name: 'current' };

describe('assertStoreKey', () => {
  it('accepts any non-empty part whose stored form fits: paths, URLs, e-mail addresses, Unicode', () => {
    for (const part of [
      'ref:call_1@v2.json-x',
      'tenant/conv-1',
      '../../etc/passwd',
      '..',
      'a b',
      'a\u0000b',
      'https://x.test/?q=1',
      'ana@example.com',
      '会話',
      'x'.repeat(200),
    ]) {
      expect(() => assertStoreKey({ ...good, sessionId: part, name: part })).not.toThrow();
    }
  });

  it.each([
    ['an empty part', { ...good, sessionId: '' }],
    ['an over-long part', { ...good, name: 'x'.repeat(201) }],
    ['a part whose escapes make it over-long', { ...good, name: '/'.repeat(67) }],
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
    expect(() => assertStoreKeyPrefix({ agentId: 'a', sessionId: '../x' })).not.toThrow();
    expect(() => assertStoreKeyPrefix({ agentId: 'a', sessionId: '' })).toThrow(StoreKeyError);
    expect(() => assertStoreKeyPrefix({ agentId: 'a', kind: 'nope' as StoreKey['kind'] })).toThrow(StoreKeyError);
  });
});

describe('formatStoreKey', () => {
  it('joins the stored forms of the parts with slashes', () => {
    expect(formatStoreKey(good)).toBe('support-agent/conv-42/summary/current');
    expect(formatStoreKey({ ...good, sessionId: 'tenant/conv-1' })).toBe(
      'support-agent/tenant%2Fconv-1/summary/current',
    );
  });
});

describe('encodeStoreKeyPart', () => {
  it('keeps ordinary ids as they read and writes only safe characters otherwise', () => {
    expect(encodeStoreKeyPart('conv-42:v2@x.y_z')).toBe('conv-42:v2@x.y_z');
    expect(encodeStoreKeyPart('../a/b')).toBe('%2E.%2Fa%2Fb');
    expect(encodeStoreKeyPart('会')).toBe('%u4F1A');
    expect(encodeStoreKeyPart('100%')).toBe('100%25');
  });

  it('is injective and decodes back, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const encoded = encodeStoreKeyPart(a);
        expect(decodeStoreKeyPart(encoded)).toBe(a);
        expect(encoded).toMatch(/^[A-Za-z0-9._:@%-]*$/);
        expect(encoded.startsWith('.')).toBe(false);
        if (a !== b) expect(encodeStoreKeyPart(b)).not.toBe(encoded);
      }),
    );
    expect(decodeStoreKeyPart(encodeStoreKeyPart('\ud800x'))).toBe('\ud800x');
  });
});
