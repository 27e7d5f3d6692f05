import type { ChatMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { exchange } from '../test-support';
import type { ViewEntry } from './history-layout';
import { compactionTail, currentTurnStart } from './tail-turns';

/** The rule stated over a view's entries (retain + summary first), as a compaction keeps its last turn. */
function entriesRule(entries: ReadonlyArray<ViewEntry>): number {
  let firstReal = 0;
  while (firstReal < entries.length && entries[firstReal]!.source === null) firstReal++;
  const tail = compactionTail(
    entries.map((entry) => entry.message),
    firstReal,
    1,
  );
  if (tail.start < entries.length) return tail.start;
  for (let index = entries.length - 1; index >= 0; index--)
    if (entries[index]!.source !== null && entries[index]!.message.role === 'assistant') return index;
  return entries.length;
}

describe('currentTurnStart', () => {
  describe('#currentTurnStart', () => {
    it('starts at the newest user message when an earlier turn exists', () => {
      const messages: ChatMessage[] = [
        { role: 'user', content: 'one' },
        ...exchange('a', 'x'),
        { role: 'user', content: 'two' },
        ...exchange('b', 'y'),
        ...exchange('c', 'z'),
      ];
      expect(currentTurnStart(messages)).toBe(3);
    });

    it('starts at the newest model step of a long single-turn run', () => {
      const messages: ChatMessage[] = [
        { role: 'user', content: 'task' },
        ...exchange('a', 'x'),
        ...exchange('b', 'y'),
        ...exchange('c', 'z'),
      ];
      expect(currentTurnStart(messages)).toBe(5);
    });

    it('treats the user message after a compaction summary as the start of a long run', () => {
      const messages: ChatMessage[] = [
        { role: 'user', content: 'summary' },
        { role: 'user', content: 'task' },
        ...exchange('a', 'x'),
        ...exchange('b', 'y'),
      ];
      expect(currentTurnStart(messages, 1)).toBe(4);
    });

    it('starts at the newest model step when there is no user message', () => {
      const messages: ChatMessage[] = [...exchange('a', 'x'), ...exchange('b', 'y')];
      expect(currentTurnStart(messages)).toBe(2);
    });

    it('returns the length of an empty view', () => {
      expect(currentTurnStart([])).toBe(0);
    });

    it('agrees with the compaction rule over the view entries for any history and compacted prefix', () => {
      const message = fc.oneof(
        fc.constant<ChatMessage>({ role: 'user', content: 'u' }),
        fc.constant<ChatMessage>({ role: 'assistant', content: 'a' }),
        fc.constantFrom('a', 'b').map((id): ChatMessage => ({
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: '{}' } }],
        })),
        fc.constantFrom('a', 'b', 'c').map((id): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'out' })),
      );
      fc.assert(
        fc.property(fc.array(message, { maxLength: 14 }), fc.nat(3), (kept, from) => {
          // Retain + summary (user messages without a source) come first.
          const messages: ChatMessage[] = [
            ...Array.from({ length: from }, (): ChatMessage => ({ role: 'user', content: 'summary' })),
            ...kept,
          ];
          const entries: ViewEntry[] = messages.map((entry, index) => ({
            message: entry,
            source: index < from ? null : index,
          }));
          expect(currentTurnStart(messages, from)).toBe(entriesRule(entries));
        }),
      );
    });
  });
});
