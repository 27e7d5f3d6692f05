import type { ChatMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { historyFingerprint } from './history-fingerprint';

/** The fingerprint computed on copies: new objects, so nothing remembered for the originals applies. */
function fromScratch(messages: ReadonlyArray<ChatMessage>, from: number, to: number): string {
  return historyFingerprint(structuredClone(messages.slice(from, Math.max(from, to))), 0, to - from);
}

function conversation(turns: number, tag = ''): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push({ role: 'user', content: `question ${turn}${tag}` });
    history.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: 'read', arguments: `{"turn":${turn}}` } }],
    });
    history.push({ role: 'tool', tool_call_id: `c${turn}`, content: `output ${turn}` });
    history.push({ role: 'assistant', content: `answer ${turn}` });
  }
  return history;
}

const arbMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.string({ maxLength: 8 }).map((content): ChatMessage => ({ role: 'user', content })),
  fc.string({ maxLength: 8 }).map((content): ChatMessage => ({ role: 'assistant', content })),
);

describe('historyFingerprint', () => {
  it(
    'gives what a computation from scratch gives, whatever ranges are asked in whatever order while the history ' +
      'grows, is edited or rebuilt',
    () => {
      fc.assert(
        fc.property(
          fc.array(arbMessage, { minLength: 1, maxLength: 12 }),
          fc.array(
            fc.record({
              grow: fc.array(arbMessage, { maxLength: 4 }),
              edit: fc.option(fc.tuple(fc.nat(), arbMessage), { nil: undefined }),
              rebuild: fc.boolean(),
              from: fc.nat({ max: 4 }),
              length: fc.nat({ max: 20 }),
            }),
            { maxLength: 15 },
          ),
          (initial, calls) => {
            let history = initial;
            for (const call of calls) {
              history = [...history, ...call.grow];
              if (call.edit) history[call.edit[0] % history.length] = call.edit[1];
              if (call.rebuild) history = structuredClone(history);
              const from = Math.min(call.from, history.length - 1);
              const to = Math.min(history.length, from + call.length);
              expect(historyFingerprint(history, from, to)).toBe(fromScratch(history, from, to));
            }
          },
        ),
      );
    },
  );

  it('answers shorter and longer ranges of one start in any order (re-sync checks between fold starts)', () => {
    const history = conversation(10);
    for (const length of [12, 11, 20, 8, 9, 13, 40, 39, 12])
      expect(historyFingerprint(history, 0, length)).toBe(fromScratch(history, 0, length));
    for (const length of [5, 4, 6, 6, 3])
      expect(historyFingerprint(history, 8, 8 + length)).toBe(fromScratch(history, 8, 8 + length));
  });

  it('changes when a message inside the range is replaced, though the first and last stay the same objects', () => {
    const history = conversation(20);
    const before = historyFingerprint(history, 0, 60);
    const edited = history.slice();
    edited[30] = { ...edited[30]!, content: 'output 7, edited' } as ChatMessage;
    expect(historyFingerprint(edited, 0, 60)).not.toBe(before);
    expect(historyFingerprint(edited, 0, 60)).toBe(fromScratch(edited, 0, 60));
    // And back: the original objects give the original fingerprint again.
    expect(historyFingerprint(history, 0, 60)).toBe(before);
  });

  it('recognises a history rebuilt from JSON by its content', () => {
    const history = conversation(10);
    expect(historyFingerprint(JSON.parse(JSON.stringify(history)) as ChatMessage[], 0, 40)).toBe(
      historyFingerprint(history, 0, 40),
    );
    expect(historyFingerprint(conversation(10, ' (another)'), 0, 40)).not.toBe(historyFingerprint(history, 0, 40));
  });

  it('keeps the stored layout: a fixed history gives the fingerprint summaries already in stores carry', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Book me a flight to Seattle on May 20th.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'search_flights', arguments: '{"to":"SEA"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '[{"flight":"HAT123"}]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'HAT123 at 9:00, please. ' },
          { type: 'text', text: '東京 ✈️' },
        ],
      },
    ];
    expect(historyFingerprint(history, 0, 4)).toBe('4:YXGL9ACkvtmgWxpdh7KiKjGY3Tzorq4Z0RZOGj9w26M');
    expect(historyFingerprint(history, 1, 3)).toBe('2:xRnFnlqEltvcXLCFyCh__EoE4d5rHbxcuXkYXFN6R8A');
    expect(historyFingerprint(history, 0, 4)).toBe('4:YXGL9ACkvtmgWxpdh7KiKjGY3Tzorq4Z0RZOGj9w26M');
  });

  it('names the number of messages and gives one value for an empty range', () => {
    const history = conversation(2);
    expect(historyFingerprint(history, 0, 5)).toMatch(/^5:/);
    expect(historyFingerprint(history, 3, 3)).toBe(historyFingerprint([], 0, 0));
  });
});
