import { type ChatMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';
import { arbHistory } from '@ctxkit/core/testing/generators';
import fc from 'fast-check';

import { turnStarts } from '../history/turn-starts';
import { foldBatchEnd, foldBatchKey, foldIsDue } from './fold-batch';

describe('foldIsDue', () => {
  it('is due past the threshold without measuring the room', () => {
    const outgrows = jest.fn(() => false);
    expect(foldIsDue(4, 3, outgrows)).toBe(true);
    expect(outgrows).not.toHaveBeenCalled();
  });

  it('at or below the threshold, is due only when at least two turns outgrow their room', () => {
    expect(foldIsDue(3, 3, () => false)).toBe(false);
    expect(foldIsDue(2, 3, () => true)).toBe(true);
    const outgrows = jest.fn(() => true);
    expect(foldIsDue(1, 3, outgrows)).toBe(false);
    expect(outgrows).not.toHaveBeenCalled();
  });
});

describe('foldBatchEnd', () => {
  it('takes the oldest whole turns, never the newest one, and never splits a tool-call group', () => {
    fc.assert(
      fc.property(
        arbHistory({ minTurns: 2, maxTurns: 8 }),
        fc.nat(12),
        fc.integer({ min: 1, max: 6 }),
        (history, coveredTurns, batchTurns) => {
          const all = turnStarts(history);
          const covered = all[Math.min(coveredTurns, all.length - 2)]!;
          const starts = turnStarts(history, covered);
          const end = foldBatchEnd(starts, batchTurns);
          expect(history[end]!.role).toBe('user');
          expect(end).toBeGreaterThan(covered);
          expect(end).toBeLessThanOrEqual(all[all.length - 1]!);
          expect(turnStarts(history, covered, end)).toHaveLength(Math.min(batchTurns, starts.length - 1));
          // Every tool-call group lies wholly on one side of the cut.
          for (const group of groupToolCalls(history)) expect(group.start < end && end < group.end).toBe(false);
        },
      ),
      { numRuns: 60, seed: 20250101 },
    );
  });
});

describe('foldBatchKey', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'one' },
    { role: 'user', content: 'second' },
  ];

  it('is the same for the same batch and summary version, whatever the message objects', () => {
    expect(foldBatchKey(structuredClone(history), 0, 2, 1)).toBe(foldBatchKey(history, 0, 2, 1));
  });

  it('changes with the summary version and with the content of the batch', () => {
    const key = foldBatchKey(history, 0, 2, 1);
    expect(foldBatchKey(history, 0, 2, 2)).not.toBe(key);
    const edited = structuredClone(history);
    edited[1] = { role: 'assistant', content: 'edited' };
    expect(foldBatchKey(edited, 0, 2, 1)).not.toBe(key);
    expect(foldBatchKey(history, 0, 1, 1)).not.toBe(key);
  });
});
