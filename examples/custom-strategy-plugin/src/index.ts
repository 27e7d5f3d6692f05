/**
 * Example custom strategy plugin: pinned messages + sliding window. Its `plugin.json` declares the
 * id `example-pinned-messages-strategy`; the runtime loads this entry (`dist/index.js`) and calls
 * `createStrategy` with the validated config.
 */
import type { StrategyFactory } from '@ctxkit/core';

import { PINNED_MESSAGES_DEFAULTS, type PinnedMessagesConfig } from './pinned-messages-config';
import { PinnedMessagesStrategy } from './pinned-messages-strategy';

export const createStrategy: StrategyFactory<Partial<PinnedMessagesConfig>> = (config, context) =>
  new PinnedMessagesStrategy({ ...PINNED_MESSAGES_DEFAULTS, ...config }, context);

export type { PinnedMessagesConfig } from './pinned-messages-config';
export { PINNED_MESSAGES_DEFAULTS } from './pinned-messages-config';
export { PinnedMessagesStrategy } from './pinned-messages-strategy';
