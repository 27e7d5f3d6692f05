import { createTokenCounter, type ITokenCounter } from '@ctxkit/core';

import { compileStateSchema } from '../schema/state-schema';
import { renderStateBlock } from './render-state-block';
import { StateBlockCache } from './state-block-cache';

const schema = compileStateSchema(
  {
    type: 'object',
    properties: {
      destination: { type: 'string' },
      passengers: { type: 'array', items: { type: 'string' } },
      note: { type: 'string' },
    },
    required: ['destination'],
  },
  'test',
);
const counter = createTokenCounter({ model: 'gpt-4o' });

/** The counter, with the number of texts it was asked to count. */
function countingCounter(): { counter: ITokenCounter; counted: () => number } {
  let counted = 0;
  const counting: ITokenCounter = Object.create(counter) as ITokenCounter;
  counting.count = (text: string) => {
    counted++;
    return counter.count(text);
  };
  counting.countMessage = (message) => {
    counted++;
    return counter.countMessage(message);
  };
  return { counter: counting, counted: () => counted };
}

describe('StateBlockCache', () => {
  it('renders what renderStateBlock renders, for every state, version and cap in turn', () => {
    const cache = new StateBlockCache(schema, counter);
    const many = Array.from({ length: 40 }, (_, index) => `Passenger number ${index}`);
    const calls: Array<[Record<string, unknown>, number, number]> = [
      [{}, 0, 1024],
      [{ destination: 'Seattle' }, 1, 1024],
      [{ destination: 'Seattle' }, 1, 1024],
      [{ destination: 'Seattle', passengers: many }, 2, 1024],
      [{ destination: 'Seattle', passengers: many }, 2, 60],
      [{ destination: 'Seattle', passengers: many }, 2, 1024],
      [{ destination: 'Toronto', passengers: many }, 2, 1024],
      [{ destination: 'Tokyo' }, 3, 20],
    ];
    for (const [state, version, maxTokens] of calls)
      expect(cache.render(state, version, maxTokens)).toEqual(
        renderStateBlock(state, version, schema, counter, maxTokens),
      );
  });

  it('renders a state once while it stays the same object, or the same state read afresh', () => {
    const { counter: counting, counted } = countingCounter();
    const cache = new StateBlockCache(schema, counting);
    const state = { destination: 'Seattle', passengers: ['Ada Lovelace'] };
    const first = cache.render(state, 1, 1024);
    const afterFirst = counted();
    expect(afterFirst).toBeGreaterThan(0);
    expect(cache.render(state, 1, 1024)).toBe(first);
    expect(cache.render(structuredClone(state), 1, 1024)).toBe(first);
    expect(counted()).toBe(afterFirst);
    // A new version, another cap or another state renders again.
    expect(cache.render({ ...state, note: 'aisle' }, 2, 1024)).not.toBe(first);
    expect(counted()).toBeGreaterThan(afterFirst);
  });
});
