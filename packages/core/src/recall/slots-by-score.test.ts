import fc from 'fast-check';

import { sortSlotsByScore } from './slots-by-score';

describe('sortSlotsByScore', () => {
  it('orders slots as a stable sort by score, highest first, does (ties, zeros, repeats)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, -0, 0.5, 1, 1.5, 2, 1e-300, 3.75), { minLength: 1, maxLength: 40 }),
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
