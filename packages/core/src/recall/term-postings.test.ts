import fc from 'fast-check';

import { TermPostings } from './term-postings';

type Operation = { kind: 'add'; slot: number; terms: Array<[string, number]> } | { kind: 'remove'; slot: number };

const term = fc.constantFrom(
  'flight',
  'hotel',
  'ticket',
  'tokyo',
  'refund',
  'seat',
  'window',
  'aisl',
  'bag',
  '1234',
  '日本',
);
const slot = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 300_000 }));
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      slot,
      terms: fc.uniqueArray(fc.tuple(term, fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 400 }))), {
        selector: ([name]) => name,
        maxLength: 8,
      }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), slot }) },
);

describe(TermPostings.name, () => {
  it(
    'gives back every live entry of a term with its count, in the order added, through adds, replacements, ' +
      'removals and rebuilds',
    () => {
      fc.assert(
        fc.property(
          fc.array(operation, { maxLength: 300 }),
          fc.constantFrom(0, 3, 1024),
          (operations, minDeadPostings) => {
            const postings = new TermPostings(minDeadPostings);
            // The plain model: every term's postings in the order added, and each live entry's terms.
            const added: Array<{ slot: number; term: string; count: number; live: boolean }> = [];
            const live = new Map<number, Array<[string, number]>>();
            const drop = (at: number) => {
              for (const posting of added) if (posting.slot === at) posting.live = false;
              live.delete(at);
            };
            for (const step of operations) {
              if (step.kind === 'add') {
                drop(step.slot);
                postings.add(step.slot, new Map(step.terms));
                for (const [name, count] of step.terms)
                  added.push({ slot: step.slot, term: name, count: Math.min(count, 255), live: true });
                live.set(step.slot, step.terms);
              } else {
                postings.remove(step.slot);
                drop(step.slot);
              }
            }
            expect(postings.size).toBe(live.size);
            const lengths = [...live.values()].map((terms) => terms.length);
            expect(postings.averageLength).toBeCloseTo(
              lengths.length === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / lengths.length,
              9,
            );
            for (const name of [
              'flight',
              'hotel',
              'ticket',
              'tokyo',
              'refund',
              'seat',
              'window',
              'aisl',
              'bag',
              '1234',
              '日本',
              'never',
            ]) {
              const expected = added
                .filter((posting) => posting.live && posting.term === name)
                .map((posting) => [posting.slot, posting.count]);
              const { slots, counts, length } = postings.livePostings(name);
              const actual = Array.from({ length }, (_, at) => [slots[at], counts[at]]);
              expect(actual).toEqual(expected);
              expect(postings.frequency(name)).toBe(expected.length);
            }
            for (const [at, terms] of live) {
              expect(postings.has(at)).toBe(true);
              expect(postings.termsOf(at)).toEqual(terms.map(([name]) => name));
              expect(postings.lengthOfSlot(at)).toBe(terms.length);
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('takes a few bytes a posting on a long index, and finds every one of many terms', () => {
    const postings = new TermPostings();
    const words = Array.from({ length: 2000 }, (_, index) => `w${index}`);
    const holding = new Map<string, number>();
    for (let slot = 0; slot < 20_000; slot++) {
      const terms = new Map<string, number>();
      for (let k = 0; k < 40; k++) terms.set(words[(slot * 7 + k * k * 13) % words.length]!, 1 + (k % 3 === 0 ? 1 : 0));
      for (const word of terms.keys()) holding.set(word, (holding.get(word) ?? 0) + 1);
      postings.add(slot, terms);
    }
    for (const word of words) expect(postings.frequency(word)).toBe(holding.get(word) ?? 0);
    expect(postings.frequency('w2000')).toBe(0);
    postings.trim();
    const internals = postings as unknown as { pool: Uint8Array; forward: Uint8Array };
    const bytes = internals.pool.byteLength + internals.forward.byteLength;
    expect(bytes / (20_000 * 40)).toBeLessThan(5);
    const seen = postings.livePostings('w0').length;
    expect(seen).toBe(postings.frequency('w0'));
    expect(seen).toBeGreaterThan(0);
    expect(postings.livePostings('w2000').length).toBe(0);
  });

  it('says what a slot must be', () => {
    expect(() => new TermPostings().add(-1, new Map([['a', 1]]))).toThrow(/slot is an integer/);
  });
});
