import type { ChatMessage } from '../contracts/chat-message';
import { createConformanceContext } from '../testing/conformance-context';
import { StrategyFoundation } from './strategy-foundation';
import { StrategyLifetime } from './strategy-lifetime';

const budget = { maxContextTokens: 8000, reserveOutputTokens: 500, safetyMarginRatio: 0.1 };

describe('StrategyFoundation', () => {
  it("counts with the agent's counter for the agent's model, and asks the context for another model's", () => {
    const { context } = createConformanceContext('s1');
    expect(new StrategyFoundation(context, { strategyId: 'my-strategy', budget }).counter).toBe(context.counter);
    const other = new StrategyFoundation(context, { strategyId: 'my-strategy', model: 'claude-3-5-sonnet', budget });
    expect(other.model).toBe('claude-3-5-sonnet');
    expect(other.counter).toBe(context.counterFor('claude-3-5-sonnet'));
  });

  it("runs under the context's strategy id, else its own", () => {
    const { context } = createConformanceContext('s1');
    expect(
      new StrategyFoundation({ ...context, strategyId: 'host-name' }, { strategyId: 'my-strategy', budget }).strategyId,
    ).toBe('host-name');
    expect(
      new StrategyFoundation({ ...context, strategyId: '' }, { strategyId: 'my-strategy', budget }).strategyId,
    ).toBe('my-strategy');
  });

  it('composes within the budget from its config, and counts turns on the way', () => {
    const { context } = createConformanceContext('s1');
    const base = new StrategyFoundation(context, { strategyId: 'my-strategy', budget });
    expect(base.budget().available).toBe(8000 - 500 - 800);
    const history: ChatMessage[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'again' },
    ];
    const turn = base.turns.count(history);
    expect(turn).toBe(2);
    const { payload } = base.composer.compose({ systemPrompt: 'sys', history, tools: [], turn });
    expect(payload.stats.budget.available).toBe(base.budget().available);
    expect(payload.messages.length).toBe(4);
  });

  it("with ownHistoryCheck, checks the caller's history apart from the arrays its composer lays out", () => {
    const { context } = createConformanceContext('s1');
    const history: unknown[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'and?' },
    ];
    // A working view of the history: another array, starting with another message.
    const view: ChatMessage[] = [{ role: 'user', content: 'summary' }, history[2] as ChatMessage];
    const grownAfterCompose = (ownHistoryCheck: boolean): (() => number) => {
      const base = new StrategyFoundation(context, { strategyId: 'my-strategy', budget, ownHistoryCheck });
      base.turns.count(history as ChatMessage[]);
      base.composer.compose({ systemPrompt: 'sys', history: view, tools: [], turn: 1 });
      // A message already checked is replaced in place: only a check that reads the history whole again sees it.
      const grown = [...history, { role: 'user', content: 'again' }];
      grown[1] = { role: 'narrator' };
      return () => base.turns.count(grown as ChatMessage[]);
    };
    // The shared check was last given the view: the grown history is read whole.
    expect(grownAfterCompose(false)).toThrow(expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }));
    expect(grownAfterCompose(true)()).toBe(3);
  });

  it('fails unknown models without maxContextTokens on the first budget, not before', () => {
    const { context } = createConformanceContext('s1');
    const base = new StrategyFoundation(context, {
      strategyId: 'my-strategy',
      model: 'no-such-model',
      budget: { ...budget, maxContextTokens: null },
    });
    expect(() => base.budget()).toThrow(expect.objectContaining({ code: 'CTXKIT_UNKNOWN_MODEL' }));
  });

  it('throws the same DisposedError from every method once disposed, and disposes once', () => {
    const { context } = createConformanceContext('s1');
    const base = new StrategyFoundation(context, { strategyId: 'my-strategy', budget });
    expect(() => base.assertLive('compose')).not.toThrow();
    expect(base.dispose()).toBe(true);
    expect(base.dispose()).toBe(false);
    expect(base.disposed).toBe(true);
    expect(() => base.assertLive('compose')).toThrow(expect.objectContaining({ code: 'CTXKIT_DISPOSED' }));
  });
});

describe('StrategyLifetime', () => {
  it('names the strategy, the method, the agent and the session in its error', () => {
    const lifetime = new StrategyLifetime({ strategyId: 'my-strategy', agentId: 'a1', sessionId: 's1' });
    lifetime.end();
    expect(() => lifetime.assertLive('preview')).toThrow(
      'my-strategy (preview) for agent "a1", session "s1" has been disposed.',
    );
  });
});
