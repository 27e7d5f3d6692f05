import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';
import { CODING_AGENT_SYSTEM, historyWithRefs } from '../test-support';
import { refsIn } from './payload-refs';
import { SessionPayloads } from './session-payloads';

describe('SessionPayloads', () => {
  it('reads each payload as findPayloadProblems and refsIn read it whole, previews in between changing nothing', () => {
    const step = fc.record({ from: fc.nat({ max: 10 }), grow: fc.nat({ max: 8 }), preview: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const messages = historyWithRefs(100);
        const payloads = new SessionPayloads();
        let start = 0;
        let end = 20;
        for (const next of steps) {
          start = Math.min(start + next.from, end);
          end = Math.min(messages.length, end + next.grow);
          const payload = [CODING_AGENT_SYSTEM, ...messages.slice(start, end)];
          // A preview of another payload (its window moved further) is read whole and not remembered.
          if (next.preview) {
            const other = [CODING_AGENT_SYSTEM, ...messages.slice(Math.min(start + 3, end), end)];
            expect(payloads.read(other, true)).toEqual({ refsInPayload: refsIn(other), problems: findPayloadProblems(other) });
          }
          expect(payloads.read(payload, false)).toEqual({ refsInPayload: refsIn(payload), problems: findPayloadProblems(payload) });
        }
      }),
      { numRuns: 200 },
    );
  });
});
