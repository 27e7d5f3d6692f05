import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { freezeDeep } from '../messages/freeze-deep';
import { arbHistory } from '../testing/arbitraries';
import { structuralKey } from '../testing/structural-key';
import { type CapturedMessagePin, PinnedHistory } from './pinned-history';
import { pinnedMessageText } from './pinned-message-text';

function pinOf(history: readonly ChatMessage[], index: number, id: string): CapturedMessagePin {
  const message = history[index]!;
  return {
    id,
    label: `message ${index}`,
    kind: 'message',
    messageIndex: index,
    role: message.role,
    text: pinnedMessageText(message),
    createdAt: 0,
    original: JSON.parse(JSON.stringify(message)) as ChatMessage,
  };
}

describe('PinnedHistory', () => {
  it(
    'replaces exactly the pinned messages, keeps roles and tool-call pairs valid, and never changes the caller ' +
      'history',
    () => {
      fc.assert(
        fc.property(
          arbHistory({ minTurns: 1, maxTurns: 6 }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          (generated, picks) => {
            const history = freezeDeep(generated);
            const before = structuralKey(history);
            const indexes = [...new Set(picks.map((pick) => pick % history.length))];
            const pins = indexes.map((index, n) => pinOf(history, index, `p${n + 1}`));
            const seen = new PinnedHistory().apply(history, pins);
            expect(structuralKey(history)).toBe(before);
            expect(seen).toHaveLength(history.length);
            seen.forEach((message, index) => {
              const original = history[index]!;
              expect(message.role).toBe(original.role);
              if (!indexes.includes(index)) return expect(message).toBe(original);
              expect(message).not.toBe(original);
              if (original.role === 'tool')
                expect((message as typeof original).tool_call_id).toBe(original.tool_call_id);
              if (original.role === 'assistant')
                expect((message as typeof original).tool_calls).toEqual(original.tool_calls);
            });
            expect(findPayloadProblems(seen)).toEqual(findPayloadProblems(history));
          },
        ),
        { numRuns: 60, seed: 20250101 },
      );
    },
  );

  it('gives every stand-in back as its original, the same object or a JSON copy of the stand-in', () => {
    fc.assert(
      fc.property(arbHistory({ minTurns: 1, maxTurns: 4 }), fc.nat(), (generated, pick) => {
        const history = freezeDeep(generated);
        const index = pick % history.length;
        const pins = [pinOf(history, index, 'p1')];
        const pinned = new PinnedHistory();
        const seen = pinned.apply(history, pins);
        expect(pinned.restore(seen, pins)[index]).toBe(history[index]);
        expect(pinned.restore(JSON.parse(JSON.stringify(seen)) as ChatMessage[], pins)[index]).toEqual(history[index]);
      }),
      { numRuns: 40, seed: 20250102 },
    );
  });

  it('leaves a message that is no longer the pinned one where it is', () => {
    const history: ChatMessage[] = [{ role: 'user', content: 'first task' }];
    const pins = [pinOf(history, 0, 'p1')];
    const edited: ChatMessage[] = [{ role: 'user', content: 'first tasK' }];
    expect(new PinnedHistory().apply(edited, pins)).toBe(edited);
  });
});
