import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { assertHistoryShape } from '../messages/assert-history-shape';
import { type HistoryShapeCheck, TurnCounter } from './turn-counter';

/**
 * The check of a composer, recording from which index each call checked (a grown history is checked from its old
 * length).
 */
class RecordingCheck implements HistoryShapeCheck {
  readonly checkedFrom: number[] = [];
  private previous: ReadonlyArray<unknown> = [];

  checkHistoryShape(history: ReadonlyArray<unknown>): void {
    const previous = this.previous;
    const grown =
      previous.length > 0 &&
      history.length >= previous.length &&
      history[0] === previous[0] &&
      history[previous.length - 1] === previous[previous.length - 1];
    const from = grown ? previous.length : 0;
    this.previous = [];
    assertHistoryShape(history, from);
    this.checkedFrom.push(from);
    this.previous = history.slice();
  }
}

const arbMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.string({ maxLength: 8 }).map((content): ChatMessage => ({ role: 'user', content })),
  fc.string({ maxLength: 8 }).map((content): ChatMessage => ({ role: 'assistant', content })),
  fc.string({ maxLength: 8 }).map((content): ChatMessage => ({ role: 'tool', tool_call_id: 'c1', content })),
);

describe('TurnCounter', () => {
  it('counts the user messages of every history, growing or not, as a full scan does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.array(arbMessage, { maxLength: 6 })), { maxLength: 10 }),
        (steps) => {
          const counter = new TurnCounter(new RecordingCheck());
          let history: ChatMessage[] = [];
          for (const [grow, added] of steps) {
            history = grow ? [...history, ...added] : JSON.parse(JSON.stringify([...history, ...added]));
            expect(counter.count(history)).toBe(history.filter((message) => message.role === 'user').length);
            expect(counter.index.length).toBe(history.length);
          }
        },
      ),
    );
  });

  it('checks through the shape check it was given, so a grown history is checked only from its new messages', () => {
    const check = new RecordingCheck();
    const counter = new TurnCounter(check);
    const first: ChatMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    counter.count(first);
    counter.count([...first, { role: 'user', content: 'c' }]);
    expect(check.checkedFrom).toEqual([0, 2]);
  });

  it('rejects a message with an unknown role, or one that is not an object, before counting', () => {
    const counter = new TurnCounter(new RecordingCheck());
    expect(counter.count([{ role: 'user', content: 'a' }])).toBe(1);
    expect(() =>
      counter.count([{ role: 'user', content: 'a' }, { role: 'robot', content: 'b' } as unknown as ChatMessage]),
    ).toThrow(expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }));
    expect(() => counter.count([null as unknown as ChatMessage])).toThrow(
      expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }),
    );
  });
});
