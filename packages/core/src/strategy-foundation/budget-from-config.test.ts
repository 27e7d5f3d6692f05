import { computeBudget } from '../budget/compute-budget';
import { ModelRegistry } from '../models/default-model-registry';
import { budgetFromConfig } from './budget-from-config';

describe('budgetFromConfig', () => {
  const models = new ModelRegistry();
  const window = models.get('gpt-4o').contextWindow;

  it("takes a registered model's window from the registry", () => {
    expect(
      budgetFromConfig({ maxContextTokens: null, reserveOutputTokens: 1000, safetyMarginRatio: 0.1 }, 'gpt-4o', models),
    ).toEqual(
      computeBudget({
        contextWindow: window,
        maxContextTokens: null,
        reserveOutputTokens: 1000,
        safetyMarginRatio: 0.1,
      }),
    );
  });

  it('caps the window with maxContextTokens', () => {
    const budget = budgetFromConfig(
      { maxContextTokens: 8000, reserveOutputTokens: null, safetyMarginRatio: null },
      'gpt-4o',
      models,
    );
    expect(budget).toEqual(computeBudget({ contextWindow: window, maxContextTokens: 8000 }));
    expect(budget.maxContextTokens).toBe(8000);
  });

  it('takes maxContextTokens as the window of a model the registry does not know', () => {
    expect(
      budgetFromConfig(
        { maxContextTokens: 5000, reserveOutputTokens: 0, safetyMarginRatio: 0 },
        'no-such-model',
        models,
      ).available,
    ).toBe(5000);
  });

  it('says to register the model or set maxContextTokens when it has neither', () => {
    expect(() =>
      budgetFromConfig(
        { maxContextTokens: null, reserveOutputTokens: null, safetyMarginRatio: null },
        'no-such-model',
        models,
      ),
    ).toThrow(expect.objectContaining({ code: 'CTXKIT_UNKNOWN_MODEL' }));
  });
});
