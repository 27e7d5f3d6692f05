/**
 * `std-sliding-window-strategy`: the default context strategy. Explicit named exports only.
 */
import type { StrategyContext, StrategyFactory } from '@ctxkit/core';
import type { SlidingWindowConfig } from './sliding-window-config';
import { SlidingWindowStrategy } from './sliding-window-strategy';

export type { SlidingWindowConfig } from './sliding-window-config';
export { SLIDING_WINDOW_DEFAULTS, SLIDING_WINDOW_STRATEGY_ID } from './sliding-window-config';
export { SlidingWindowStrategy } from './sliding-window-strategy';

/**
 * Creates the sliding window for one conversation. `config` is validated against `plugin.json`'s
 * `configSchema` with defaults applied (missing fields fall back to the documented defaults).
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) on the first payload when `maxContextTokens` is null and the model is not registered
 */
export function createSlidingWindowStrategy(config: Partial<SlidingWindowConfig>, context: StrategyContext): SlidingWindowStrategy {
  return new SlidingWindowStrategy(config, context);
}

/** The plugin entry's factory (what the loader calls). */
export const createStrategy: StrategyFactory<Partial<SlidingWindowConfig>> = (config, context) => createSlidingWindowStrategy(config, context);
