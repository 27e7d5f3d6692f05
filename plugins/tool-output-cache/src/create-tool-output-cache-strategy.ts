import type { StrategyContext } from '@ctxkit/core';

import { ToolOutputCacheStrategy } from './tool-output-cache-strategy';
import {
  resolveToolOutputCacheStrategyConfig,
  type ToolOutputCacheStrategyConfig,
} from './tool-output-cache-strategy-config';

/**
 * The plugin's factory, for the loader and direct callers: validates `config` and applies its defaults as the loader
 * does, then builds the strategy for one agent and session.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for a config the schema rejects, listing every invalid field
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when the model is not registered and no `maxContextTokens` is set
 * @see docs/strategies/tool-output-cache.md
 */
export function createStrategy(
  config: ToolOutputCacheStrategyConfig | undefined | null,
  context: StrategyContext,
): ToolOutputCacheStrategy {
  return new ToolOutputCacheStrategy(resolveToolOutputCacheStrategyConfig(config), context);
}
