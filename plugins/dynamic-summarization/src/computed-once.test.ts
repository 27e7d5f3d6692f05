import fc from 'fast-check';

import { computedOnce } from './computed-once';

describe('computedOnce', () => {
  it('computes a key once and answers again from what it kept', () => {
    const values = new Map<string, number>();
    let calls = 0;
    const length = (key: string): number => {
      calls++;
      return key.length;
    };
    expect(computedOnce(values, 'abc', length)).toBe(3);
    expect(computedOnce(values, 'abc', length)).toBe(3);
    expect(calls).toBe(1);
    expect(values.get('abc')).toBe(3);
  });

  it('keeps object keys by identity in a WeakMap', () => {
    const values = new WeakMap<object, string>();
    const first = { id: 1 };
    expect(computedOnce(values, first, () => 'first')).toBe('first');
    expect(computedOnce(values, { id: 1 }, () => 'other')).toBe('other');
    expect(computedOnce(values, first, () => 'again')).toBe('first');
  });

  it('answers what compute gives for any sequence of keys, computing each distinct key once', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), (keys) => {
        const values = new Map<string, string>();
        const computed: string[] = [];
        for (const key of keys) expect(computedOnce(values, key, (k) => (computed.push(k), `<${k}>`))).toBe(`<${key}>`);
        expect(computed).toEqual([...new Set(keys)]);
      }),
    );
  });
});
