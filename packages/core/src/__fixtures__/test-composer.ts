import { computeBudget } from '../budget/compute-budget';
import { PayloadComposer } from '../composer/payload-composer';
import { CtxkitEventBus } from '../events/event-bus';
import type { ITokenCounter } from '../token-counting/token-counter';

/** A composer for tests: a `maxContextTokens` budget with no output reserve, owned by a test strategy. */
export function testComposer(
  maxContextTokens: number,
  counter: ITokenCounter,
  events = new CtxkitEventBus(),
): PayloadComposer {
  const budget = computeBudget({ contextWindow: maxContextTokens, maxContextTokens, reserveOutputTokens: 0 });
  return new PayloadComposer({
    owner: { agentId: 'a', sessionId: 's', strategyId: 'test-strategy', events },
    model: 'gpt-4o',
    counter,
    budget: () => budget,
  });
}
