import type { ChatMessage } from '@ctxkit/core';
import { currentTurnStart } from './current-turn';
import { exchange } from '../test-support';
import type { ViewEntry } from './view-entry';

const entriesOf = (messages: ChatMessage[], memory = 0): ViewEntry[] =>
  messages.map((message, index) => ({ message, source: index < memory ? null : index }));

describe('currentTurnStart', () => {
  describe('#currentTurnStart', () => {
    it('starts at the newest user message when an earlier turn exists', () => {
      const messages: ChatMessage[] = [{ role: 'user', content: 'one' }, ...exchange('a', 'x'), { role: 'user', content: 'two' }, ...exchange('b', 'y'), ...exchange('c', 'z')];
      expect(currentTurnStart(entriesOf(messages))).toBe(3);
    });

    it('starts at the newest model step of a long single-turn run', () => {
      const messages: ChatMessage[] = [{ role: 'user', content: 'task' }, ...exchange('a', 'x'), ...exchange('b', 'y'), ...exchange('c', 'z')];
      expect(currentTurnStart(entriesOf(messages))).toBe(5);
    });

    it('treats the user message after a compaction summary as the start of a long run', () => {
      const messages: ChatMessage[] = [{ role: 'user', content: 'summary' }, { role: 'user', content: 'task' }, ...exchange('a', 'x'), ...exchange('b', 'y')];
      expect(currentTurnStart(entriesOf(messages, 1))).toBe(4);
    });

    it('starts at the newest model step when there is no user message', () => {
      const messages: ChatMessage[] = [...exchange('a', 'x'), ...exchange('b', 'y')];
      expect(currentTurnStart(entriesOf(messages))).toBe(2);
    });

    it('returns the length of an empty view', () => {
      expect(currentTurnStart([])).toBe(0);
    });
  });
});
