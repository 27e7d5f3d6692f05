import type { ChatMessage } from '@ctxkit/core';

const TOPICS = [
  'the vegetable garden',
  'a lentil soup recipe',
  'the train timetable',
  'the quarterly budget',
  'a chess opening',
  'the roof repair',
  'a Tolstoy novel',
  'the piano lesson',
];

/**
 * An everyday request and its answer, about one of a few unrelated topics, numbered by turn: what a recall test hides
 * its target turn among.
 */
export function recallFillerTurn(turn: number): ChatMessage[] {
  const topic = TOPICS[turn % TOPICS.length]!;
  return [
    {
      role: 'user',
      content: `Could you give me a short overview of ${topic}, part ${turn}? Three points would be enough.`,
    },
    {
      role: 'assistant',
      content:
        `Here is part ${turn} about ${topic}: first, start with the basics; second, plan the steps ahead; ` +
        `third, review the results afterwards.`,
    },
  ];
}
