import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { CODING_AGENT_SYSTEM, historyWithRefs, sentPayloads } from '../test-support';
import { refsIn } from './payload-refs';
import { SessionPayloads } from './session-payloads';

describe('SessionPayloads', () => {
  it(
    'reads each payload as findPayloadProblems and refsIn read it whole, previews, stale previous payloads, ' +
      'continued windows and changed arrays in between changing nothing',
    () => {
      const step = fc.record({
        from: fc.nat({ max: 10 }),
        grow: fc.nat({ max: 8 }),
        preview: fc.boolean(),
        changed: fc.boolean(),
        stale: fc.boolean(),
        window: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      });
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
          const messages = historyWithRefs(100);
          const payloads = new SessionPayloads();
          const sent = sentPayloads();
          let start = 0;
          let end = 20;
          for (const next of steps) {
            start = Math.min(start + next.from, end);
            end = Math.min(messages.length, end + next.grow);
            const payload = [CODING_AGENT_SYSTEM, ...messages.slice(start, end)];
            // A preview of another payload (its window moved further) is read whole and not remembered.
            if (next.preview) {
              const other = [CODING_AGENT_SYSTEM, ...messages.slice(Math.min(start + 3, end), end)];
              expect(payloads.read(other, true)).toEqual({
                refsInPayload: refsIn(other),
                problems: findPayloadProblems(other),
              });
            }
            // The payload sent before as the composer kept it, with where the window continues it or without;
            // `stale`: one that is not the payload read last (it is read whole).
            const before = sent.next(payload, next.window);
            const given = next.stale && before ? { messages: before.messages.slice(1), repeated: 0 } : before;
            expect(payloads.read(payload, false, given)).toEqual({
              refsInPayload: refsIn(payload),
              problems: findPayloadProblems(payload),
            });
            // The caller changing the array it was given changes nothing the next payload is read against.
            if (next.changed) payload.splice(1, payload.length - 1, { role: 'user', content: 'changed' });
          }
        }),
        { numRuns: 200 },
      );
    },
  );
});
