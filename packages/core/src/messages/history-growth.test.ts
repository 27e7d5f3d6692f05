import type { ChatMessage } from '../contracts/chat-message';
import { HistoryGrowth } from './history-growth';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('HistoryGrowth', () => {
  it('tells that a history is new from the previous length when it extends the previous one, else from 0', () => {
    const growth = new HistoryGrowth();
    const history = [user('a'), assistant('b')];
    const next = user('c');
    expect(growth.observe(history)).toBe(0);
    expect(growth.observe([...history, next])).toBe(2);
    // The same messages again (a repeat call): nothing is new.
    expect(growth.newFrom([...history, next])).toBe(3);
    // Rebuilt from JSON, or edited at the previous end: everything is new.
    expect(growth.newFrom(JSON.parse(JSON.stringify([...history, next])) as ChatMessage[])).toBe(0);
    expect(growth.newFrom([...history, user('other')])).toBe(0);
    expect(growth.newFrom(history)).toBe(0);
  });
});
