import type { ToolMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { RecordedReplacements } from './recorded-replacements';
import { ReductionLog } from './reduction-log';
import { recordReplacements, type Replacement, TRIMMED_TO_FIT_REASON } from './relieve-pressure';

function replacement(index: number, kind: number): Replacement {
  const copy: ToolMessage = {
    role: 'tool',
    tool_call_id: `c${index}`,
    content: kind === 0 ? `[tool output trimmed; ref=to_${index}]` : '[Previous: used run]',
    ...(kind === 0 ? { output_ref: { id: `to_${index}`, bytes: 10, lines: 1 } } : {}),
  } as ToolMessage;
  return { index, copy, before: 100 + index, after: 10 };
}

/** A log that already holds a record, of the relief's kind (`merging`) or another. */
function logWith(merging: boolean): ReductionLog {
  const log = new ReductionLog();
  log.add(
    merging ? 'trimmed' : 'truncated',
    { from: 0 },
    { reason: merging ? TRIMMED_TO_FIT_REASON : 'cut to the tool output budget', recoverableFrom: 'tool-output-cache' },
  );
  return log;
}

describe('RecordedReplacements', () => {
  it('makes, call after call, the records that recording every replacement again makes', () => {
    const arbCall = fc.record({
      keep: fc.nat(),
      added: fc.array(fc.nat({ max: 1 }), { maxLength: 6 }),
      merging: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbCall, { minLength: 1, maxLength: 12 }), (calls) => {
        const recorded = new RecordedReplacements();
        let previous: Replacement[] = [];
        for (const call of calls) {
          // The last call's replacements (some or all, the same objects) and new ones after them.
          const kept = previous.slice(0, previous.length === 0 ? 0 : call.keep % (previous.length + 1));
          let next = kept.length > 0 ? kept[kept.length - 1]!.index + 1 : 1;
          const replacements = [...kept, ...call.added.map((kind) => replacement(next++, kind))];
          const expected = logWith(call.merging);
          recordReplacements(replacements, expected);
          const actual = logWith(call.merging);
          recorded.record(replacements, actual);
          expect(actual.list()).toEqual(expected.list());
          previous = replacements;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('copies in the records of the replacements it recorded before instead of recording them one by one', () => {
    const recorded = new RecordedReplacements();
    const first = [replacement(1, 0), replacement(2, 0), replacement(3, 1)];
    recorded.record(first, new ReductionLog());
    const log = new ReductionLog();
    const addOne = jest.spyOn(log, 'addOne');
    recorded.record([...first, replacement(4, 0)], log);
    expect(addOne).toHaveBeenCalledTimes(1);
    expect(log.list().map((record) => [record.action, record.from, record.to, record.refs])).toEqual([
      ['trimmed', 1, 3, ['to_1', 'to_2']],
      ['micro-compacted', 3, 4, undefined],
      ['trimmed', 4, 5, ['to_4']],
    ]);
  });
});
