import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

import { createStrategy } from './index';
import type { SlidingWindowConfig } from './sliding-window-config';

// The plugin as a host loads it: plugin.json read and validated, each case's config validated by its
// configSchema with the defaults applied; the factory from the sources (the entry is their build).
const plugin = path.join(__dirname, '..');

runConformance<SlidingWindowConfig>('std-sliding-window-strategy', { plugin, factory: createStrategy });

// Cut back to 60% of the room when the history overflows, then hold the window's start.
runConformance<SlidingWindowConfig>('std-sliding-window-strategy (cutBackRatio 0.6)', {
  plugin,
  factory: createStrategy,
  config: { cutBackRatio: 0.6 },
  cases: ['property', 'long-history', 'conversation'],
});
