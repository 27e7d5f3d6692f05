import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

import { createStrategy } from './index';
import type { RecallStrategyConfig } from './recall-strategy-config';

// The plugin as a host loads it: plugin.json read and validated, each case's config validated by its
// configSchema with the defaults applied; the factory from the sources (the entry is their build).
const plugin = path.join(__dirname, '..');

runConformance<RecallStrategyConfig>('std-recall-strategy', { plugin, factory: createStrategy });

// Recall may take almost all of the room: the budget and the pair rules hold all the same.
runConformance<RecallStrategyConfig>('std-recall-strategy (share 0.95, no recent minimum)', {
  plugin,
  factory: createStrategy,
  config: { recall: { share: 0.95, minRecentTokens: 0 } } as never,
  cases: ['property', 'long-history', 'conversation'],
});
