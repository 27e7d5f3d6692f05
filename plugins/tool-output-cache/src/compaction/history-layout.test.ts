import type { ChatMessage, UserMessage } from '@ctxkit/core';
import type { CompactionState } from './compaction-state';
import { mapHistory } from './history-layout';

const user = (content: string): UserMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('mapHistory', () => {
  const history: ChatMessage[] = [user('task'), assistant('a1'), user('more'), assistant('a2'), user('now')];
  const summary = user('summary');
  const state: CompactionState = { prefix: [summary], keepFrom: 3, covered: history.slice(0, 3), transcriptRef: 'transcript:t.jsonl', tokensBefore: 100, tokensAfter: 10, count: 1 };

  it('maps every message onto itself without a compaction', () => {
    expect(mapHistory(history, undefined)).toEqual(history.map((message, index) => ({ message, source: index })));
  });

  it('maps the full history onto retain + summary and the kept messages', () => {
    expect(mapHistory(history, state)).toEqual([{ message: summary, source: null }, { message: history[3], source: 3 }, { message: history[4], source: 4 }]);
  });

  it('recognizes a caller that adopted the compacted history (rebuilt from JSON too)', () => {
    const adopted = JSON.parse(JSON.stringify([summary, history[3], history[4], assistant('a3')])) as ChatMessage[];
    expect(mapHistory(adopted, state)!.map((entry) => entry.source)).toEqual([null, 1, 2, 3]);
  });

  it('carries the user message of a long run after the summary with its own source', () => {
    const carried = { ...history[0]! } as UserMessage;
    const mapped = mapHistory(history, { ...state, prefix: [summary, carried], carriedSource: 0 })!;
    expect(mapped.slice(0, 3)).toEqual([{ message: summary, source: null }, { message: carried, source: 0, carried: true }, { message: history[3], source: 3 }]);
  });

  it('returns undefined for a history that no longer continues the compacted one', () => {
    expect(mapHistory([user('another task'), ...history.slice(1)], state)).toBeUndefined();
    expect(mapHistory(history.slice(0, 2), state)).toBeUndefined();
  });
});
