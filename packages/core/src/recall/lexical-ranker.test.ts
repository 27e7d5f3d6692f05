import fc from 'fast-check';

import { LexicalRanker } from './lexical-ranker';

/** BM25+ written out plainly over the live documents, the reference the index must agree with. */
function referenceScores(documents: Map<number, string[]>, terms: string[]): Map<number, number> {
  const k = 1.2;
  const b = 0.7;
  const d = 0.5;
  const distinct = new Map([...documents].map(([slot, words]) => [slot, new Set(words)]));
  const meanLength = [...distinct.values()].reduce((sum, set) => sum + set.size, 0) / Math.max(1, distinct.size);
  const scores = new Map<number, { score: number; matched: number }>();
  for (const term of new Set(terms)) {
    const holding = [...distinct].filter(([, set]) => set.has(term)).map(([slot]) => slot);
    if (holding.length === 0) continue;
    const inverse = Math.log(1 + (distinct.size - holding.length + 0.5) / (holding.length + 0.5));
    for (const slot of holding) {
      const count = documents.get(slot)!.filter((word) => word === term).length;
      const length = distinct.get(slot)!.size;
      const score = inverse * (d + (count * (k + 1)) / (count + k * (1 - b + (b * length) / meanLength)));
      const sum = scores.get(slot) ?? { score: 0, matched: 0 };
      scores.set(slot, { score: sum.score + score, matched: sum.matched + 1 });
    }
  }
  return new Map([...scores].map(([slot, { score, matched }]) => [slot, score * matched]));
}

function searched(ranker: LexicalRanker, terms: string[]): Map<number, number> {
  const { slots, scores } = ranker.search(terms);
  return new Map(slots.map((slot) => [slot, scores[slot]!]));
}

describe(LexicalRanker.name, () => {
  it(
    'scores every live entry as BM25+ over its distinct terms, through adds, removals and the rebuild of its ' +
      'postings',
    () => {
      const word = fc.constantFrom(
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
      );
      fc.assert(
        fc.property(
          fc.array(fc.array(word, { maxLength: 12 }), { minLength: 1, maxLength: 60 }),
          fc.array(fc.nat(), { maxLength: 40 }),
          fc.array(word, { minLength: 1, maxLength: 4 }),
          (texts, removals, query) => {
            const ranker = new LexicalRanker();
            const live = new Map<number, string[]>();
            texts.forEach((words, slot) => {
              ranker.add(slot, { text: words.join(' ') });
              live.set(slot, words);
            });
            for (const pick of removals) {
              const slot = pick % texts.length;
              ranker.remove(slot);
              live.delete(slot);
            }
            const expected = referenceScores(live, query);
            const actual = searched(ranker, query);
            expect([...actual.keys()].sort((x, y) => x - y)).toEqual([...expected.keys()].sort((x, y) => x - y));
            for (const [slot, score] of expected) expect(actual.get(slot)).toBeCloseTo(score, 9);
            expect(ranker.size).toBe(live.size);
            for (const [slot, words] of live)
              expect([...ranker.terms(slot)].sort()).toEqual([...new Set(words)].sort());
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it('finds the entries left after most were removed, once their postings are rebuilt', () => {
    const ranker = new LexicalRanker();
    for (let slot = 0; slot < 3000; slot++)
      ranker.add(slot, { text: slot % 100 === 0 ? `rare marker ${slot}` : `common filler words ${slot}` });
    for (let slot = 0; slot < 3000; slot++) if (slot % 100 !== 0) ranker.remove(slot);
    expect([...searched(ranker, ['marker']).keys()].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 30 }, (_, index) => index * 100),
    );
    expect(searched(ranker, ['filler']).size).toBe(0);
    expect(ranker.terms(100)).toEqual(['rare', 'marker', '100']);
  });

  it('gives the best entries first', () => {
    const ranker = new LexicalRanker();
    ranker.add(0, { text: 'we booked a hotel' });
    ranker.add(1, { text: 'the hotel in Paris near the station' });
    ranker.add(2, { text: 'a flight to Tokyo' });
    expect(ranker.search(ranker.queryTerms('Which hotel in Paris?')).slots).toEqual([1, 0]);
  });
});
