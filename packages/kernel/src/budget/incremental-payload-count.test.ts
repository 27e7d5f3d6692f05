import { type ChatMessage, type ITokenCounter } from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';
import { freezeDeep } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { arbPayloadStep, arbUnitKind, conversationOf, payloadsOf } from '../__fixtures__/payload-sequences';
import { CalibratedTokenCounter } from '../count-calibration/calibrated-token-counter';
import { CountCalibration } from '../count-calibration/count-calibration';
import { IncrementalPayloadCount } from './incremental-payload-count';

/** A heuristic counter that remembers which messages it was asked to count. */
class WatchedCounter extends HeuristicTokenCounter {
  readonly counted: Array<Readonly<ChatMessage>> = [];

  override countMessage(message: Readonly<ChatMessage>): number {
    this.counted.push(message);
    return super.countMessage(message);
  }
}

function history(count: number): ChatMessage[] {
  return freezeDeep(
    Array.from({ length: count }, (_, index): ChatMessage =>
      index % 2 === 0
        ? { role: 'user', content: `question number ${index}` }
        : { role: 'assistant', content: `the answer to question ${index - 1} is longer` },
    ),
  );
}

describe('IncrementalPayloadCount', () => {
  describe('#countMessages', () => {
    it("gives the counter's own total for every payload of any sequence", () => {
      const counter = new HeuristicTokenCounter('gpt-4o');
      fc.assert(
        fc.property(
          fc.array(arbUnitKind, { minLength: 4, maxLength: 30 }),
          fc.array(arbPayloadStep, { minLength: 1, maxLength: 25 }),
          (kinds, steps) => {
            const count = new IncrementalPayloadCount();
            for (const payload of payloadsOf(conversationOf(kinds), steps))
              expect(count.countMessages(counter, payload)).toBe(counter.countMessages(payload));
          },
        ),
        { numRuns: 300 },
      );
    });

    it('counts only the messages a payload adds, and those it leaves out of the previous one', () => {
      const counter = new WatchedCounter('gpt-4o');
      const plain = new HeuristicTokenCounter('gpt-4o');
      const count = new IncrementalPayloadCount();
      const system = freezeDeep<ChatMessage>({ role: 'system', content: 'You help.' });
      const messages = history(1000);
      count.countMessages(counter, [system, ...messages]);
      counter.counted.length = 0;
      const added = freezeDeep<ChatMessage>({ role: 'user', content: 'and now?' });
      expect(count.countMessages(counter, [system, ...messages, added])).toBe(
        plain.countMessages([system, ...messages, added]),
      );
      // The system messages of both payloads (outside the run they share) and the new message.
      expect(counter.counted).toEqual([system, system, added]);
      counter.counted.length = 0;
      // The window slid: 10 messages left out at the start.
      expect(count.countMessages(counter, [system, ...messages.slice(10), added])).toBe(
        plain.countMessages([system, ...messages.slice(10), added]),
      );
      expect(counter.counted).toEqual([system, ...messages.slice(0, 10), system]);
    });

    it("counts again in full when the counter's correction changed", () => {
      const calibration = new CountCalibration();
      const counter = new CalibratedTokenCounter(new HeuristicTokenCounter('gpt-4o'), calibration);
      const count = new IncrementalPayloadCount();
      const messages = history(200);
      const before = count.countMessages(counter, messages);
      calibration.observe(before, Math.round(before * 1.3));
      expect(calibration.correction).toBeGreaterThan(1);
      const next = [...messages, freezeDeep<ChatMessage>({ role: 'user', content: 'more' })];
      expect(count.countMessages(counter, next)).toBe(counter.countMessages(next));
      expect(count.countMessages(counter, next)).toBeGreaterThan(before);
    });

    it('counts again in full with another counter', () => {
      const count = new IncrementalPayloadCount();
      const messages = history(50);
      const ones: ITokenCounter = {
        meta: () => ({
          model: 'ones',
          encoding: null,
          uses_tiktoken: false,
          strategy: 'heuristic',
          backend: 'heuristic',
        }),
        count: () => 1,
        countUpTo: () => 1,
        countMessage: () => 1,
        countMessages: (list) => list.length,
        countTools: () => 0,
      };
      count.countMessages(new HeuristicTokenCounter('gpt-4o'), messages);
      expect(count.countMessages(ones, messages)).toBe(50);
    });
  });
});
