import fc from 'fast-check';

import { noViewReductions, spliceViewReductions, type ViewReduction, type ViewReductions } from './view-reductions';
import { ViewReductionsLog } from './view-reductions-log';

/**
 * The reductions the view lays out at `[from, to)`: in-context views, micro-compacted results (some without a ref),
 * placeholders.
 */
function laidOut(from: number, to: number, seed: number): ViewReductions {
  const reductions = noViewReductions();
  for (let position = from; position < to; position++) {
    const pick = (position * 7 + seed) % 11;
    const ref = `to_${String(position).padStart(32, '0')}`;
    if (pick < 3)
      reductions.truncated.push({
        position,
        recoverableFrom: 'tool-output-cache',
        ref,
        ...(pick === 0 ? {} : { tokensBefore: position + seed }),
      });
    if (pick >= 3 && pick < 6)
      reductions.microCompacted.push(
        pick === 3 ? { position, recoverableFrom: 'history' } : { position, recoverableFrom: 'tool-output-cache', ref },
      );
    if (pick >= 5)
      reductions.trimmed.push({ position, recoverableFrom: 'tool-output-cache', ref, tokensAfter: 30 + (pick % 3) });
  }
  return reductions;
}

describe('ViewReductionsLog', () => {
  it('gives the log a new one gives, call after call, as the view cuts and extends its lists in place', () => {
    const call = fc.record({
      grow: fc.nat({ max: 30 }),
      relay: fc.nat({ max: 40 }),
      region: fc.nat({ max: 20 }),
      fresh: fc.boolean(),
      keepRecent: fc.constantFrom(2, 3),
    });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 12 }), fc.nat({ max: 100 }), (calls, seed) => {
        const kept = new ViewReductionsLog();
        let length = 40;
        let region = 0;
        let reductions = laidOut(0, length, seed);
        calls.forEach((next, turn) => {
          const grown = length + next.grow;
          // Laid out again from `stable` on (the view's splice: the lists cut there and extended in place), or from
          // scratch.
          const stable = Math.max(region, length - next.relay);
          reductions = next.fresh
            ? laidOut(region, grown, seed + turn)
            : spliceViewReductions(reductions, region, stable, noViewReductions(), laidOut(stable, grown, seed + turn));
          if (next.region > 15) region = Math.min(grown, region + next.region - 15);
          length = grown;
          const remember = Math.max(region, length - 5);
          const expected = new ViewReductionsLog().log(reductions, region, next.keepRecent, remember).list();
          expect(JSON.stringify(kept.log(reductions, region, next.keepRecent, remember).list())).toBe(
            JSON.stringify(expected),
          );
        });
      }),
      { numRuns: 300 },
    );
  });

  it('merges each kind into ranges with their refs and tokens', () => {
    const reductions = noViewReductions();
    const at = (position: number, extra: Partial<ViewReduction> = {}): ViewReduction => ({
      position,
      recoverableFrom: 'tool-output-cache',
      ref: `to_${String(position).padStart(32, '0')}`,
      ...extra,
    });
    reductions.trimmed.push(at(3, { tokensAfter: 30 }), at(5, { tokensAfter: 31 }), at(9, { tokensAfter: 32 }));
    reductions.microCompacted.push({ position: 4, recoverableFrom: 'history' }, at(6));
    const records = new ViewReductionsLog().log(reductions, 4, 3, 100).list();
    expect(records).toEqual([
      {
        action: 'micro-compacted',
        from: 4,
        to: 5,
        messages: 1,
        reason: 'tool result older than the newest 3',
        recoverableFrom: 'history',
      },
      {
        action: 'trimmed',
        from: 5,
        to: 10,
        messages: 2,
        reason: 'tool outputs passed the tool output budget',
        recoverableFrom: 'tool-output-cache',
        refs: [at(5).ref, at(9).ref],
        tokensAfter: 63,
      },
      {
        action: 'micro-compacted',
        from: 6,
        to: 7,
        messages: 1,
        reason: 'tool result older than the newest 3',
        recoverableFrom: 'tool-output-cache',
        refs: [at(6).ref],
      },
    ]);
  });
});
