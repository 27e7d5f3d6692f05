import { noViewReductions, type ViewReduction, viewReductionsLog } from './view-reductions';

describe('viewReductionsLog', () => {
  it('merges each kind into ranges with their refs and tokens', () => {
    const reductions = noViewReductions();
    const at = (position: number, extra: Partial<ViewReduction> = {}): ViewReduction => ({
      position,
      recoverableFrom: 'tool-output-cache',
      ref: `to_${String(position).padStart(32, '0')}`,
      ...extra,
    });
    reductions.trimmed.push(at(5, { tokensAfter: 31 }), at(9, { tokensAfter: 32 }));
    reductions.microCompacted.push({ position: 4, recoverableFrom: 'history' }, at(6));
    const records = viewReductionsLog(reductions, 3).list();
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
