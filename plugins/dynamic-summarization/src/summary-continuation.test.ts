import {
  type ChatMessage,
  conversationCacheKey,
  CtxkitEventBus,
  MemoryContextStore,
  ModelRegistry,
  type StrategyContext,
} from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import { reservationTurn } from './test-support';

function context(llm: ScriptedLLMClient): StrategyContext {
  const counter = new HeuristicTokenCounter('gpt-4o');
  return {
    agentId: 'airline',
    sessionId: 's-1',
    strategyId: 'std-summarization-strategy',
    model: 'gpt-4o',
    counter,
    counterFor: () => counter,
    models: new ModelRegistry(),
    store: new MemoryContextStore(),
    events: new CtxkitEventBus(),
    llm,
    now: () => Date.UTC(2026, 0, 1),
  };
}

const history = (turns: number): ChatMessage[] =>
  Array.from({ length: turns }, (_, index) => reservationTurn(index + 1)).flat();
const reply = '<summary>The user looked up RES1001 for user_1, on flight HAT101.</summary>';

describe("summary requests and the conversation's prompt cache", () => {
  it(
    'continue the last request a model received when the turns to fold were in it, naming them; the whole prompt ' +
      'stays for other clients',
    async () => {
      const llm = new ScriptedLLMClient([reply]);
      const strategy = createStrategy({ threshold: 1, batchTurns: 1, maxContextTokens: 8000 }, context(llm));
      const turns = history(2);
      await strategy.composePayload('You are an airline agent.', turns, []);
      await strategy.onTurnComplete(turns);
      await strategy.whenIdle();

      const [request] = llm.requests;
      expect(request!.cacheKey).toBe(conversationCacheKey('airline', 's-1'));
      expect(request!.continuation).toHaveLength(1);
      const instruction = String(request!.continuation![0]!.content);
      expect(instruction).toContain(
        'oldest 4 messages, from the user message that begins "Turn 1: please look up reservation RES1001',
      );
      expect(instruction).toContain('to the assistant message that begins "Reservation RES1001 is on flight HAT101.');
      expect(instruction).toContain('inside <summary></summary> tags');
      // The transcript is in the request's own messages, for a client that continues no turn.
      expect(String(request!.messages.at(-1)!.content)).toContain('<transcript first_message="0"');
      await strategy.dispose();
    },
  );

  it('stand alone when the turns to fold were not all in the last request, or no model received one', async () => {
    const llm = new ScriptedLLMClient([reply, reply]);
    const strategy = createStrategy({ threshold: 1, batchTurns: 1, maxContextTokens: 8000 }, context(llm));
    const turns = history(2);
    // A composition nobody sends (read_window) is not a request the fold can continue.
    await strategy.composePayload('You are an airline agent.', turns, [], undefined, { sent: false });
    await strategy.onTurnComplete(turns);
    await strategy.whenIdle();
    expect(llm.requests[0]).not.toHaveProperty('continuation');
    expect(llm.requests[0]).not.toHaveProperty('cacheKey');

    // A composition of a history that does not hold the turns to fold at their indexes.
    const other = createStrategy({ threshold: 1, batchTurns: 1, maxContextTokens: 8000 }, context(llm));
    const longer = history(3);
    await other.composePayload('You are an airline agent.', longer.slice(4), []);
    await other.onTurnComplete(longer);
    await other.whenIdle();
    expect(llm.requests[1]).not.toHaveProperty('continuation');
    await strategy.dispose();
    await other.dispose();
  });
});
