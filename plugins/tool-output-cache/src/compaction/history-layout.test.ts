import type { ChatMessage, UserMessage } from '@ctxkit/core';

import { type CompactionState, layoutEntries, layoutHistory } from './history-layout';

const user = (content: string): UserMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('layoutHistory', () => {
  const history: ChatMessage[] = [user('task'), assistant('a1'), user('more'), assistant('a2'), user('now')];
  const summary = user('summary');
  const state: CompactionState = {
    prefix: [summary],
    keepFrom: 3,
    covered: history.slice(0, 3),
    transcriptRef: 'transcript:t.jsonl',
    tokensBefore: 100,
    tokensAfter: 10,
    count: 1,
  };
  const entries = (messages: ReadonlyArray<ChatMessage>, compaction: CompactionState | undefined) => {
    const layout = layoutHistory(messages, compaction);
    return layout && layoutEntries(layout, messages.length, (index) => messages[index]!);
  };

  it('maps every message onto itself without a compaction', () => {
    expect(layoutHistory(history, undefined)).toMatchObject({ form: 'none', memory: [], keepFrom: 0 });
    expect(entries(history, undefined)).toEqual(history.map((message, index) => ({ message, source: index })));
  });

  it('maps the full history onto retain + summary and the kept messages', () => {
    expect(layoutHistory(history, state)).toMatchObject({ form: 'full', memory: [summary], keepFrom: 3 });
    expect(entries(history, state)).toEqual([
      { message: summary, source: null },
      { message: history[3], source: 3 },
      { message: history[4], source: 4 },
    ]);
  });

  it('recognizes a caller that adopted the compacted history (rebuilt from JSON too)', () => {
    const adopted = JSON.parse(JSON.stringify([summary, history[3], history[4], assistant('a3')])) as ChatMessage[];
    expect(layoutHistory(adopted, state)).toMatchObject({ form: 'adopted', keepFrom: 1, memory: [adopted[0]] });
    expect(entries(adopted, state)!.map((entry) => entry.source)).toEqual([null, 1, 2, 3]);
  });

  it('carries the user message of a long run after the summary with its own source', () => {
    const carried = { ...history[0]! } as UserMessage;
    const layout = layoutHistory(history, { ...state, prefix: [summary, carried], carriedSource: 0 })!;
    expect(layout.carried).toEqual({ message: carried, source: 0 });
    const mapped = layoutEntries(layout, history.length, (index) => history[index]!);
    expect(mapped.slice(0, 3)).toEqual([
      { message: summary, source: null },
      { message: carried, source: 0, carried: true },
      { message: history[3], source: 3 },
    ]);
  });

  it('returns undefined for a history that no longer continues the compacted one', () => {
    expect(layoutHistory([user('another task'), ...history.slice(1)], state)).toBeUndefined();
    expect(layoutHistory(history.slice(0, 2), state)).toBeUndefined();
  });
});
