import type { ChatMessage, ToolMessage } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';
import { exchange } from '../test-support';
import { refsIn } from './payload-refs';
import { SessionPayloads } from './session-payloads';

const SYSTEM: ChatMessage = { role: 'system', content: 'You are a coding agent.' };

/** A history of user messages and tool exchanges, every other output carrying a ref. */
function history(length: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; messages.length < length; index++) {
    if (index % 3 === 0) messages.push({ role: 'user', content: `Step ${index}.` });
    else {
      const [call, result] = exchange(`c${index}`, `output ${index}`) as [ChatMessage, ToolMessage];
      messages.push(call, index % 2 ? { ...result, output_ref: { id: `to_${String(index).padStart(32, '0')}` } } : result);
    }
  }
  return messages;
}

describe('SessionPayloads', () => {
  it('reads each payload as findPayloadProblems and refsIn read it whole, previews in between changing nothing', () => {
    const step = fc.record({ from: fc.nat({ max: 10 }), grow: fc.nat({ max: 8 }), preview: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const messages = history(100);
        const payloads = new SessionPayloads();
        let start = 0;
        let end = 20;
        for (const next of steps) {
          start = Math.min(start + next.from, end);
          end = Math.min(messages.length, end + next.grow);
          const payload = [SYSTEM, ...messages.slice(start, end)];
          // A preview of another payload (its window moved further) is read whole and not remembered.
          if (next.preview) {
            const other = [SYSTEM, ...messages.slice(Math.min(start + 3, end), end)];
            expect(payloads.read(other, true)).toEqual({ refsInPayload: refsIn(other), problems: findPayloadProblems(other) });
          }
          expect(payloads.read(payload, false)).toEqual({ refsInPayload: refsIn(payload), problems: findPayloadProblems(payload) });
        }
      }),
      { numRuns: 200 },
    );
  });
});
