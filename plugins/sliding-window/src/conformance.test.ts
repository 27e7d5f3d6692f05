import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './index';
import { SLIDING_WINDOW_DEFAULTS, type SlidingWindowConfig } from './sliding-window-config';

runConformance<Partial<SlidingWindowConfig>>('std-sliding-window-strategy', {
  factory: createStrategy,
  config: { ...SLIDING_WINDOW_DEFAULTS },
});

// Cut back to 60% of the room when the history overflows, then hold the window's start.
runConformance<Partial<SlidingWindowConfig>>('std-sliding-window-strategy (cutBackRatio 0.6)', {
  factory: createStrategy,
  config: { ...SLIDING_WINDOW_DEFAULTS, cutBackRatio: 0.6 },
  cases: ['property', 'long-history', 'conversation'],
});
