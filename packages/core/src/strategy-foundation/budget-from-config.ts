import { computeBudget } from '../budget/compute-budget';
import type { PayloadBudget } from '../contracts/llm-payload';
import type { IModelRegistry } from '../models/model-registry';

/** The budget settings of a standard strategy's config (the names its `plugin.json` schema uses). */
export interface BudgetConfig {
  /** Hard ceiling for payload + output; `null` takes the model's window from the registry. */
  maxContextTokens: number | null;
  /** Tokens kept for the answer; `null` for the default. */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free; `null` for the default. */
  safetyMarginRatio: number | null;
}

/**
 * The payload budget of a strategy for `model`: `computeBudget` with the config's settings and the
 * model's window from the registry; a model the registry does not know takes `maxContextTokens` as
 * its window.
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when `maxContextTokens` is null and the registry does not know
 *   `model`: register the model or set `maxContextTokens`
 */
export function budgetFromConfig(config: BudgetConfig, model: string, models: IModelRegistry): PayloadBudget {
  const { maxContextTokens, reserveOutputTokens, safetyMarginRatio } = config;
  const contextWindow = models.find(model)?.contextWindow ?? maxContextTokens ?? models.get(model).contextWindow;
  return computeBudget({ contextWindow, maxContextTokens, reserveOutputTokens, safetyMarginRatio });
}
