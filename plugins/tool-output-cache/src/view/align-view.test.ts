import type { ChatMessage, UserMessage } from '@ctxkit/core';

import type { CompactionState } from '../compaction/compaction-state';
import { layoutHistory } from '../compaction/history-layout';
import { placeLayout } from './align-view';

const user = (content: string): UserMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('placeLayout', () => {
  const history = [user('task'), assistant('a1'), user('more'), assistant('a2'), user('now')];
  const state: CompactionState = {
    prefix: [user('summary')],
    keepFrom: 3,
    covered: history.slice(0, 3),
    transcriptRef: 'transcript:t.jsonl',
    tokensBefore: 100,
    tokensAfter: 10,
    count: 1,
  };

  it('starts at 0 without a compaction', () => {
    expect(placeLayout(layoutHistory(history, undefined)!, history.length)).toEqual({ startIndex: 0 });
  });

  it('starts at the first kept message, or after the whole history when nothing is kept', () => {
    expect(placeLayout(layoutHistory(history, state)!, history.length)).toEqual({ startIndex: 3 });
    const nothingKept = { ...state, keepFrom: 5, covered: history };
    expect(placeLayout(layoutHistory(history, nothingKept)!, history.length)).toEqual({ startIndex: 5 });
  });

  it('puts a carried user message right before the kept messages, in the position it displaces', () => {
    const carried = { ...history[0]! } as UserMessage;
    const layout = layoutHistory(history, { ...state, prefix: [user('summary'), carried], carriedSource: 0 })!;
    expect(placeLayout(layout, history.length)).toEqual({ startIndex: 2, carriedAt: 2 });
  });

  it('starts after retain + summary in a history that adopted the compaction', () => {
    const adopted = [...state.prefix, history[3]!, history[4]!];
    expect(placeLayout(layoutHistory(adopted, state)!, adopted.length)).toEqual({ startIndex: 1 });
  });
});
