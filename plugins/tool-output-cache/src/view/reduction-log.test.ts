import { noViewReductions, type ReducedMessage, ReductionLog, viewReductionsLog } from './reduction-log';

const at = (position: number, tokensAfter: number) => ({
  position,
  recoverableFrom: 'tool-output-cache' as const,
  ref: `to_${position}`,
  tokensAfter,
});

describe('ReductionLog', () => {
  it('lists a merged record for the kept history only: split at a gap, with the refs and tokens there', () => {
    const log = new ReductionLog();
    for (const position of [2, 4, 9, 11, 15]) log.add('micro-compacted', 'older', at(position, position));
    log.add('trimmed', 'budget', at(20, 7));
    const kept = [
      { from: 0, to: 5 },
      { from: 10, to: 30 },
    ];
    expect(log.list(kept)).toEqual([
      {
        action: 'micro-compacted',
        from: 2,
        to: 5,
        messages: 2,
        reason: 'older',
        recoverableFrom: 'tool-output-cache',
        refs: ['to_2', 'to_4'],
        tokensAfter: 6,
      },
      {
        action: 'micro-compacted',
        from: 11,
        to: 16,
        messages: 2,
        reason: 'older',
        recoverableFrom: 'tool-output-cache',
        refs: ['to_11', 'to_15'],
        tokensAfter: 26,
      },
      // Within one kept range: as it was merged.
      {
        action: 'trimmed',
        from: 20,
        to: 21,
        messages: 1,
        reason: 'budget',
        recoverableFrom: 'tool-output-cache',
        refs: ['to_20'],
        tokensAfter: 7,
      },
    ]);
    // Nothing kept: no record. Without kept ranges: every record as merged.
    expect(log.list([{ from: 30, to: 40 }])).toEqual([]);
    expect(log.list().map((record) => [record.from, record.to, record.messages])).toEqual([
      [2, 16, 5],
      [20, 21, 1],
    ]);
  });
});

describe('viewReductionsLog', () => {
  it('merges each kind into ranges with their refs and tokens', () => {
    const reductions = noViewReductions();
    const at = (position: number, extra: Partial<ReducedMessage> = {}): ReducedMessage => ({
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
