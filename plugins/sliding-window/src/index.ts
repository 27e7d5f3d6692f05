/**
 * `std-sliding-window-strategy`: the default context strategy. Explicit named exports only.
 */
import type { StrategyContext } from '@ctxkit/core';

import { resolveSlidingWindowConfig, type SlidingWindowConfig } from './sliding-window-config';
import { SlidingWindowStrategy } from './sliding-window-strategy';

export type { SlidingWindowConfig } from './sliding-window-config';
export {
  resolveSlidingWindowConfig,
  SLIDING_WINDOW_DEFAULTS,
  SLIDING_WINDOW_STRATEGY_ID,
} from './sliding-window-config';
export { SlidingWindowStrategy } from './sliding-window-strategy';

/**
 * The plugin's factory (what the loader calls, and direct callers too): validates `config` against
 * `plugin.json`'s `configSchema` with its defaults applied, then creates the sliding window for one
 * conversation.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for an invalid config
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) on the first payload when `maxContextTokens` is null and the model
 *   is not registered
 */
export function createStrategy(
  config: Partial<SlidingWindowConfig> | undefined | null,
  context: StrategyContext,
): SlidingWindowStrategy {
  return new SlidingWindowStrategy(resolveSlidingWindowConfig(config), context);
}
