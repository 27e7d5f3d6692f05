import type { ReductionRecord } from '../contracts/llm-payload';
import { keptHistoryRanges } from './kept-history';

function record(action: ReductionRecord['action'], from: number, to: number): ReductionRecord {
  return { action, from, to, messages: to - from, reason: 'test', recoverableFrom: 'history' };
}

describe('keptHistoryRanges', () => {
  it('gives the history less every dropped range, in order; a cut message is kept', () => {
    const records = [
      record('dropped', 12, 13),
      record('dropped', 0, 2),
      record('truncated', 20, 21),
      record('dropped', 5, 9),
      record('dropped', 7, 10),
    ];
    expect(keptHistoryRanges(records, 24)).toEqual([
      { from: 2, to: 5 },
      { from: 10, to: 12 },
      { from: 13, to: 24 },
    ]);
  });

  it('gives the whole history without a drop, and nothing when everything is dropped', () => {
    expect(keptHistoryRanges([record('truncated', 3, 4)], 6)).toEqual([{ from: 0, to: 6 }]);
    expect(keptHistoryRanges([record('dropped', 0, 6)], 6)).toEqual([]);
    expect(keptHistoryRanges([], 0)).toEqual([]);
  });
});
