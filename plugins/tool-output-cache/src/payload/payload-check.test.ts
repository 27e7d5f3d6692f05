import { type ChatMessage } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { call, sentPayloads } from '../test-support';
import { PayloadCheck } from './payload-check';
import { PreviousPayload } from './payload-continuation';

const SYSTEM: ChatMessage = { role: 'system', content: 'You are a coding agent.' };

/** A session's check, each payload read against the previous one (as the strategy reads it). */
function sessionCheck(): { problems(payload: ChatMessage[]): ReturnType<PayloadCheck['problems']> } {
  const previous = new PreviousPayload();
  const payloadCheck = new PayloadCheck();
  const sent = sentPayloads();
  return {
    problems(payload) {
      const problems = payloadCheck.problems(payload, previous.against(payload, sent.next(payload)));
      previous.remember(payload);
      return problems;
    },
  };
}

/** A conversation of units: a user message, an assistant answer, or a call with one or two results. */
function conversation(units: number[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  units.forEach((kind, index) => {
    if (kind === 0) messages.push({ role: 'user', content: `Step ${index}.` });
    else if (kind === 1) messages.push({ role: 'assistant', content: `Done ${index}.` });
    else {
      const ids = kind === 2 ? [`c${index}`] : [`c${index}a`, `c${index}b`];
      messages.push({ role: 'assistant', content: null, tool_calls: ids.map((id) => call(id)) });
      for (const id of ids) messages.push({ role: 'tool', tool_call_id: id, content: `output ${id}` });
    }
  });
  return messages;
}

/** What can happen to a payload's conversation part between two calls (on top of its window moving). */
type Change = 'none' | 'copy-one' | 'drop-result' | 'orphan-result' | 'system-inside' | 'no-user' | 'unknown-role';

function change(body: ChatMessage[], kind: Change, at: number): ChatMessage[] {
  const result = body.slice();
  if (result.length === 0) return result;
  const index = at % result.length;
  switch (kind) {
    case 'copy-one':
      result[index] = { ...result[index]! } as ChatMessage;
      break;
    case 'drop-result': {
      const tool = result.findIndex((message, position) => position >= index && message.role === 'tool');
      if (tool !== -1) result.splice(tool, 1);
      break;
    }
    case 'orphan-result':
      result.splice(index, 0, { role: 'tool', tool_call_id: 'nobody', content: 'stray' });
      break;
    case 'system-inside':
      result.splice(index, 0, { role: 'system', content: 'late' });
      break;
    case 'no-user':
      return result.filter((message) => message.role !== 'user');
    case 'unknown-role':
      result.splice(index, 0, { role: 'narrator', content: '?' } as unknown as ChatMessage);
      break;
    default:
      break;
  }
  return result;
}

describe('PayloadCheck', () => {
  it(
    'finds what findPayloadProblems finds, payload after payload, however the window moves and whatever a payload ' +
      'breaks',
    () => {
      const step = fc.record({
        from: fc.nat({ max: 12 }),
        grow: fc.nat({ max: 6 }),
        change: fc.constantFrom<Change>(
          'none',
          'none',
          'none',
          'copy-one',
          'drop-result',
          'orphan-result',
          'system-inside',
          'no-user',
          'unknown-role',
        ),
        at: fc.nat(),
      });
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 20, maxLength: 60 }),
          fc.array(step, { minLength: 1, maxLength: 12 }),
          (units, steps) => {
            const history = conversation(units);
            const check = sessionCheck();
            let start = 0;
            let end = Math.min(history.length, 10);
            for (const next of steps) {
              // The window starts at a unit (now and then inside one, as a broken payload would).
              start = Math.min(start + next.from, end);
              if (next.at % 7 !== 0) while (start < end && history[start]!.role === 'tool') start++;
              end = Math.min(history.length, end + next.grow);
              const payload = [SYSTEM, ...change(history.slice(start, end), next.change, next.at)];
              expect(check.problems(payload)).toEqual(findPayloadProblems(payload));
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('reads only what a continuing payload adds', () => {
    let reads = 0;
    const counted = (message: ChatMessage): ChatMessage =>
      new Proxy(message, { get: (target, key) => (reads++, Reflect.get(target, key)) });
    const history = conversation(Array.from({ length: 400 }, (_, index) => index % 4)).map(counted);
    const check = sessionCheck();
    expect(check.problems([SYSTEM, ...history.slice(0, 294)])).toEqual([]);
    expect(reads).toBeGreaterThan(294);
    reads = 0;
    // The window moved past its oldest units and the payload gained a cycle of seven messages.
    expect(check.problems([SYSTEM, ...history.slice(7, 308)])).toEqual([]);
    expect(reads).toBeLessThan(60);
  });
});
