import type { ChatMessage } from '@ctxkit/core';
import { createTokenCounter } from '@ctxkit/core';

import { bm25Scores, plainBm25Payload } from './plain-bm25-reference';

describe('plain BM25 reference', () => {
  it('scores by term frequency and rarity, with length normalisation', () => {
    const [tennis, other, both] = bm25Scores(
      [
        ['tennis', 'racket'],
        ['sister', 'mixer'],
        ['tennis', 'tennis', 'racket', 'store'],
      ],
      ['tennis', 'store'],
    );
    expect(other).toBe(0);
    expect(both!).toBeGreaterThan(tennis!);
  });

  it('keeps the newest half, adds the best older messages whole in order, within 90% of the ceiling', () => {
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const history: ChatMessage[] = [];
    for (let index = 0; index < 60; index++)
      history.push({
        role: index % 2 ? 'assistant' : 'user',
        content: `filler ${index} about cooking rice with vegetables and eggs tonight`,
      });
    history[4] = { role: 'user', content: 'I bought my tennis racket at the sports store downtown.' };
    const question: ChatMessage = { role: 'user', content: 'Where did I buy my tennis racket?' };
    const payload = plainBm25Payload('system', history, question, 600, counter);
    expect(counter.countMessages(payload)).toBeLessThanOrEqual(540);
    expect(payload).toContain(history[4]);
    expect(payload.at(-1)).toBe(question);
    expect(payload.at(-2)).toBe(history[59]);
    const positions = payload.slice(1, -1).map((message) => history.indexOf(message));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});
