import fc from 'fast-check';

import { CODING_AGENT_SYSTEM, historyWithRefs, sentPayloads } from '../test-support';
import { PreviousPayload } from './payload-continuation';
import { PayloadRefs, refsIn } from './payload-refs';

describe('PayloadRefs', () => {
  it(
    'counts what refsIn counts, payload after payload, however the window moves and whatever is shown ' + 'differently',
    () => {
      const step = fc.record({
        from: fc.nat({ max: 10 }),
        grow: fc.nat({ max: 8 }),
        swap: fc.option(fc.nat(), { nil: undefined }),
        memory: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 15 }), (steps) => {
          const messages = historyWithRefs(120);
          const refs = new PayloadRefs();
          const previous = new PreviousPayload();
          const sent = sentPayloads();
          let start = 0;
          let end = 20;
          for (const next of steps) {
            start = Math.min(start + next.from, end);
            end = Math.min(messages.length, end + next.grow);
            const body = messages.slice(start, end);
            // A tool message shown otherwise this time (a placeholder copy, with or without its ref).
            if (next.swap !== undefined && body.length > 0) {
              const at = next.swap % body.length;
              const message = body[at]!;
              if (message.role === 'tool')
                body[at] = message.output_ref
                  ? { ...message, output_ref: undefined }
                  : { ...message, output_ref: { id: 'to_ffffffffffffffffffffffffffffffff' } };
            }
            const payload = [
              CODING_AGENT_SYSTEM,
              ...(next.memory ? [{ role: 'system' as const, content: 'memory' }] : []),
              ...body,
            ];
            expect(refs.count(payload, previous.against(payload, sent.next(payload)))).toBe(refsIn(payload));
            previous.remember(payload);
          }
        }),
        { numRuns: 300 },
      );
    },
  );
});
