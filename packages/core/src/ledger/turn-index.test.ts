import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { TurnIndex } from './turn-index';

function userStarts(history: ReadonlyArray<ChatMessage>, from = 0, to = history.length): number[] {
  const starts: number[] = [];
  for (let index = from; index < to; index++) if (history[index]!.role === 'user') starts.push(index);
  return starts;
}

const arbMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.string({ maxLength: 12 }).map((content): ChatMessage => ({ role: 'user', content })),
  fc.string({ maxLength: 12 }).map((content): ChatMessage => ({ role: 'assistant', content })),
  fc.string({ maxLength: 12 }).map((content): ChatMessage => ({ role: 'tool', tool_call_id: 'c1', content })),
);

/**
 * One call's history, from the previous one: grown, rebuilt from JSON and grown, cut short, or another conversation.
 */
const arbStep = fc.oneof(
  fc.record({ kind: fc.constant('grow' as const), added: fc.array(arbMessage, { maxLength: 6 }) }),
  fc.record({ kind: fc.constant('rebuild' as const), added: fc.array(arbMessage, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat({ max: 8 }) }),
  fc.record({ kind: fc.constant('replace' as const), added: fc.array(arbMessage, { minLength: 1, maxLength: 8 }) }),
);

describe('TurnIndex', () => {
  it('answers like a full scan of every history it is synced with (grown, rebuilt from JSON, cut, replaced)', () => {
    fc.assert(
      fc.property(
        fc.array(arbMessage, { maxLength: 10 }),
        fc.array(arbStep, { maxLength: 12 }),
        fc.nat({ max: 30 }),
        fc.nat({ max: 30 }),
        (initial, steps, a, b) => {
          const index = new TurnIndex();
          let history = initial;
          const check = () => {
            index.sync(history);
            const starts = userStarts(history);
            expect(index.turns).toBe(starts.length);
            expect(index.length).toBe(history.length);
            expect(index.startsWithin()).toEqual(starts);
            const [from, to] = [Math.min(a, b), Math.max(a, b)];
            expect(index.startsWithin(from, to)).toEqual(
              userStarts(history, Math.min(from, history.length), Math.min(to, history.length)),
            );
            expect(index.turnsWithin(from, to)).toBe(
              userStarts(history, Math.min(from, history.length), Math.min(to, history.length)).length,
            );
            expect(index.turnsBefore(a)).toBe(userStarts(history, 0, Math.min(a, history.length)).length);
            starts.forEach((start, turn) => expect(index.turnStart(turn)).toBe(start));
            expect(index.turnStart(starts.length)).toBeUndefined();
          };
          check();
          let conversations = 0;
          for (const step of steps) {
            if (step.kind === 'grow') history = [...history, ...step.added];
            else if (step.kind === 'rebuild')
              history = [...(JSON.parse(JSON.stringify(history)) as ChatMessage[]), ...step.added];
            else if (step.kind === 'cut') history = history.slice(0, step.keep);
            else history = [{ role: 'system', content: `conversation ${++conversations}` }, ...step.added];
            check();
          }
        },
      ),
    );
  });

  it('reads only the new messages while the history grows with the same objects', () => {
    const history: ChatMessage[] = [];
    for (let turn = 0; turn < 500; turn++)
      history.push({ role: 'user', content: `question ${turn}` }, { role: 'assistant', content: `answer ${turn}` });
    const index = new TurnIndex();
    expect(index.sync(history)).toBe(false);
    let reads = 0;
    const grown = [...history, { role: 'user', content: 'second' } as ChatMessage];
    const watched = new Proxy(grown, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(index.sync(watched)).toBe(true);
    // The first message, the previous last one and the new one (each read at most twice), not the 1,000 before.
    expect(reads).toBeLessThanOrEqual(6);
    expect(index.sync(JSON.parse(JSON.stringify(grown)) as ChatMessage[])).toBe(false);
    expect(index.turns).toBe(501);
    expect(index.turnStart(500)).toBe(1000);
  });

  it('reads the whole history again when it does not continue the previous one', () => {
    const index = new TurnIndex();
    index.sync([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ]);
    expect(
      index.sync([
        { role: 'assistant', content: 'another conversation' },
        { role: 'user', content: 'd' },
      ]),
    ).toBe(false);
    expect(index.startsWithin()).toEqual([1]);
    expect(index.sync([])).toBe(false);
    expect(index.turns).toBe(0);
  });
});
