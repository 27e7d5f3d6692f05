import fc from 'fast-check';

import { orderByKeyDescending, sortSlotsByScore } from './descending-order';

const arbKey = fc.constantFrom(0, -0, 0.5, 1, 1.5, 2, 1e-300, 3.75);

describe('orderByKeyDescending', () => {
  it('orders items as a stable sort by key, highest first, does (ties, zeros)', () => {
    fc.assert(
      fc.property(fc.array(arbKey, { maxLength: 60 }), (values) => {
        const items = values.map((key, at) => ({ key, at }));
        const expected = items.slice().sort((a, b) => b.key - a.key);
        orderByKeyDescending(items, Float64Array.from(values));
        expect(items).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('sortSlotsByScore', () => {
  it('orders slots as a stable sort by score, highest first, does', () => {
    fc.assert(
      fc.property(
        fc.array(arbKey, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(39), { maxLength: 60 }),
        (values, picks) => {
          const scores = Float64Array.from(values);
          const slots = [...new Set(picks.map((pick) => pick % values.length))];
          const expected = slots.slice().sort((x, y) => scores[y]! - scores[x]!);
          sortSlotsByScore(slots, scores);
          expect(slots).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
