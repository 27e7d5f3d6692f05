/**
 * `std-recall-strategy`: the newest history plus the older turns the newest user message needs.
 * Explicit named exports only.
 */
import type { StrategyContext } from '@ctxkit/core';

import { RecallStrategy } from './recall-strategy';
import { type DeepPartial, type RecallStrategyConfig, resolveRecallStrategyConfig } from './recall-strategy-config';

export { RecallStrategy } from './recall-strategy';
export type { DeepPartial, RecallStrategyConfig } from './recall-strategy-config';
export { RECALL_STRATEGY_DEFAULTS, RECALL_STRATEGY_ID, resolveRecallStrategyConfig } from './recall-strategy-config';

/**
 * The plugin's factory (what the loader calls, and direct callers too): validates `config` against
 * `plugin.json`'s `configSchema` with its defaults applied, then creates the recall strategy for one
 * conversation.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for an invalid config
 * @throws RecallScopeError (`CTXKIT_RECALL_SCOPE_UNAVAILABLE`) for `recall.scope: "resource"` on a session opened
 *   without a resourceId
 */
export function createStrategy(
  config: DeepPartial<RecallStrategyConfig> | undefined | null,
  context: StrategyContext,
): RecallStrategy {
  return new RecallStrategy(resolveRecallStrategyConfig(config), context);
}
