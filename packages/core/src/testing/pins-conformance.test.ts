import { computeBudget } from '../budget/compute-budget';
import { PayloadComposer } from '../composer/payload-composer';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { runPinsCase } from './pins-conformance';

interface Config {
  maxContextTokens: number;
  reserveOutputTokens: number;
}

/** A window strategy on the shared composer; `flaw` breaks what the pins case checks. */
function windowStrategy(
  flaw?: 'drops-pinned-block' | 'repeats-pinned-block' | 'ignores-budget',
): StrategyFactory<Config> {
  return (config, context) => {
    const budget = computeBudget({
      contextWindow: config.maxContextTokens,
      maxContextTokens: config.maxContextTokens,
      reserveOutputTokens: config.reserveOutputTokens,
    });
    const composer = new PayloadComposer({
      owner: {
        agentId: context.agentId,
        sessionId: context.sessionId,
        strategyId: context.strategyId,
        events: context.events,
      },
      model: context.model,
      counter: context.counter,
      budget: () => (flaw === 'ignores-budget' ? { ...budget, available: budget.available * 4 } : budget),
    });
    const rewrite = (systemPrompt: string): string => {
      // The pinned block follows the system prompt after a blank line (the prompt here has none).
      const block = systemPrompt.indexOf('\n\n');
      if (flaw === 'drops-pinned-block' && block !== -1) return systemPrompt.slice(0, block);
      if (flaw === 'repeats-pinned-block' && block !== -1) return systemPrompt + systemPrompt.slice(block);
      return systemPrompt;
    };
    return {
      async composePayload(systemPrompt, history, tools, ragContext) {
        return composer.compose({ systemPrompt: rewrite(systemPrompt), history, tools, ragContext, turn: 0 }).payload;
      },
      async onTurnComplete() {},
    };
  };
}

describe('the pins case of the conformance suite', () => {
  it('passes a strategy that keeps the system prompt it is given', async () => {
    const result = await runPinsCase({ factory: windowStrategy() });
    expect(result.failures).toEqual([]);
    expect(result.composeCalls).toBe(16);
  });

  it('reports a strategy that drops the pinned block', async () => {
    const { failures } = await runPinsCase({ factory: windowStrategy('drops-pinned-block') });
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures.map((failure) => failure.invariant))).toEqual(new Set(['pins']));
    expect(failures[0]!.message).toContain('pinned block');
  });

  it('reports a strategy that sends the pinned message twice', async () => {
    const { failures } = await runPinsCase({ factory: windowStrategy('repeats-pinned-block') });
    expect(failures.map((failure) => failure.message)).toContain(
      'the pinned first user message appears 2 times in the payload (once expected: in the pinned block)',
    );
  });

  it('reports a strategy that goes over the budget', async () => {
    const { failures } = await runPinsCase({ factory: windowStrategy('ignores-budget') });
    expect(failures.map((failure) => failure.invariant)).toContain('budget');
  });
});
