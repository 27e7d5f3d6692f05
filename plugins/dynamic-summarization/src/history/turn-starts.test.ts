import type { ChatMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { turnCount, turnStarts } from './turn-starts';

function scan(history: ReadonlyArray<ChatMessage>, from: number, to: number): number[] {
  const starts: number[] = [];
  for (let index = from; index < Math.min(to, history.length); index++)
    if (history[index]!.role === 'user') starts.push(index);
  return starts;
}

const arbMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.constant<ChatMessage>({ role: 'user', content: 'question' }).map((message) => ({ ...message })),
  fc.constant<ChatMessage>({ role: 'assistant', content: 'answer' }).map((message) => ({ ...message })),
);

describe('turnStarts and turnCount', () => {
  it(
    'answer like a scan of the history for every range, as conversations grow, are cut, or share a first ' + 'message',
    () => {
      fc.assert(
        fc.property(
          fc.array(arbMessage, { minLength: 1, maxLength: 10 }),
          fc.array(
            fc.tuple(
              fc.array(arbMessage, { maxLength: 5 }),
              fc.nat({ max: 12 }),
              fc.nat({ max: 30 }),
              fc.nat({ max: 30 }),
            ),
            { maxLength: 12 },
          ),
          (initial, steps) => {
            // Two conversations that start with the same message object, asked about in turn.
            const conversations = [initial, initial.slice()];
            steps.forEach(([added, keep, a, b], step) => {
              const which = step % 2;
              const grown = [...conversations[which]!, ...added];
              conversations[which] = keep < 2 ? grown.slice(0, Math.max(1, grown.length - keep)) : grown;
              const history = conversations[which]!;
              const [from, to] = [Math.min(a, b), Math.max(a, b)];
              expect(turnStarts(history)).toEqual(scan(history, 0, history.length));
              expect(turnStarts(history, from, to)).toEqual(scan(history, from, to));
              expect(turnCount(history, from, to)).toBe(scan(history, from, to).length);
              expect(turnCount(history)).toBe(scan(history, 0, history.length).length);
            });
          },
        ),
      );
    },
  );

  it('is empty for an empty history', () => {
    expect(turnStarts([])).toEqual([]);
    expect(turnCount([])).toBe(0);
  });
});
