import { computeBudget } from '../budget/compute-budget';
import type { IModelRegistry } from '../models/model-registry';

/**
 * The available budget (tokens a payload may use) a standard strategy computes from its config:
 * `computeBudget` with the config's `maxContextTokens`, `reserveOutputTokens` and `safetyMarginRatio`
 * and the model's window from the registry. `undefined` when neither the config nor the registry
 * gives a window (the strategy's first payload then says it).
 */
export function availableBudgetFromConfig(
  config: Readonly<Record<string, unknown>>,
  model: string,
  models: IModelRegistry,
): number | undefined {
  const maxContextTokens = positiveNumber(config.maxContextTokens);
  const contextWindow = models.find(model)?.contextWindow ?? maxContextTokens;
  if (contextWindow === undefined) return undefined;
  try {
    return computeBudget({
      contextWindow,
      maxContextTokens: maxContextTokens ?? null,
      reserveOutputTokens: nonNegativeNumber(config.reserveOutputTokens) ?? null,
      safetyMarginRatio: nonNegativeNumber(config.safetyMarginRatio) ?? null,
    }).available;
  } catch {
    return undefined; // a config the strategy itself will refuse
  }
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function nonNegativeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
