import type { ChatMessage } from '@ctxkit/core';
import { alignView } from './align-view';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('alignView', () => {
  const history = [user('task'), assistant('a1'), user('more'), assistant('a2'), user('now')];

  it('replaces positions by their view messages and starts at 0 without a compaction', () => {
    const copy = assistant('a1 (view)');
    const aligned = alignView(history.map((message, index) => ({ message: index === 1 ? copy : message, source: index })), history);
    expect(aligned).toEqual({ messages: [history[0], copy, ...history.slice(2)], startIndex: 0, memory: [] });
  });

  it('returns retain + summary apart and starts at the first kept message', () => {
    const summary = user('summary');
    const aligned = alignView([{ message: summary, source: null }, { message: history[3]!, source: 3 }, { message: history[4]!, source: 4 }], history);
    expect(aligned.memory).toEqual([summary]);
    expect(aligned.startIndex).toBe(3);
    expect(aligned.messages).toHaveLength(history.length);
    expect(aligned.displaced).toBeUndefined();
  });

  it('puts a carried user message right before the kept messages, reporting the position it took', () => {
    const carried = { ...history[0]! };
    const aligned = alignView([{ message: user('summary'), source: null }, { message: carried, source: 0, carried: true }, { message: history[3]!, source: 3 }, { message: history[4]!, source: 4 }], history);
    expect(aligned.startIndex).toBe(2);
    expect(aligned.messages[2]).toBe(carried);
    expect(aligned.displaced).toBe(2);
  });
});
