import fc from 'fast-check';

import { callObservation } from '../__fixtures__/call-observation';
import type { CallObservation } from '../lab/call-observation';
import { summarizeObservations } from '../lab/strategy-summary';
import { callsCell, renderRejectedCalls } from './rejected-calls';

/** Call `call`: rejected with `error`, else 900 tokens sent. */
function observation(call: number, error?: { code: string; message: string }): CallObservation {
  if (error) return callObservation({ call, error });
  return callObservation({
    call,
    sentTokens: 900,
    available: 3175,
    sections: { system: 500, tools: 0, dynamic: 0, memory: 0, history: 400 },
  });
}

const budget = {
  code: 'CTXKIT_BUDGET_EXCEEDED',
  message: 'system prompt + tool definitions need 1252 tokens but the budget allows 465. Fix: Raise maxContextTokens.',
};
const history = {
  code: 'CTXKIT_HISTORY_INVALID',
  message: 'history[3] has role "robot".\nat index 3\nFix: Use system, user, assistant or tool.',
};

describe('renderRejectedCalls', () => {
  it('prints nothing when no call was rejected', () => {
    const summary = summarizeObservations('s', 's', 'd', 4096, 1, [observation(0), observation(1)]);
    expect(renderRejectedCalls([summary])).toBe('');
    expect(callsCell(summary)).toBe('2');
  });

  it('names each code with its calls and the first line of its message, per strategy and transcript', () => {
    const summary = summarizeObservations(
      'std-sliding-window-strategy',
      'std-sliding-window-strategy',
      'tau-bench',
      600,
      1,
      [observation(0, budget), observation(1), observation(2, history), observation(3, budget)],
    );
    const text = renderRejectedCalls([summary]);
    expect(text).toContain('tau-bench · std-sliding-window-strategy: 3 of 4 calls');
    expect(text).toContain(`CTXKIT_BUDGET_EXCEEDED (2): ${budget.message}`);
    expect(text).toContain('CTXKIT_HISTORY_INVALID (1): history[3] has role "robot".\n');
    expect(text).not.toContain('at index 3');
    expect(callsCell(summary)).toBe('4 (3 rejected: CTXKIT_BUDGET_EXCEEDED, CTXKIT_HISTORY_INVALID)');
  });

  it('accounts for every rejected call once, under its code, most calls first', () => {
    const codes = ['CTXKIT_BUDGET_EXCEEDED', 'CTXKIT_HISTORY_INVALID', 'CTXKIT_STRATEGY_ERROR'];
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.record({ code: fc.constantFrom(...codes), message: fc.string() }), { nil: undefined }), {
          maxLength: 40,
        }),
        (errors) => {
          const summary = summarizeObservations(
            's',
            's',
            'd',
            4096,
            1,
            errors.map((error, call) => observation(call, error)),
          );
          const rejected = errors.filter((error) => error !== undefined);
          expect(summary.rejections.reduce((total, reason) => total + reason.calls, 0)).toBe(rejected.length);
          expect(summary.rejections.map((reason) => reason.code).sort()).toEqual(
            [...new Set(rejected.map((error) => error.code))].sort(),
          );
          for (const reason of summary.rejections) {
            expect(reason.calls).toBe(rejected.filter((error) => error.code === reason.code).length);
            expect(reason.message).not.toContain('\n');
          }
          const counts = summary.rejections.map((reason) => reason.calls);
          expect(counts).toEqual([...counts].sort((a, b) => b - a));
        },
      ),
    );
  });
});
