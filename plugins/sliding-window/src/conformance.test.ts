import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './index';
import { SLIDING_WINDOW_DEFAULTS, type SlidingWindowConfig } from './sliding-window-config';

runConformance<Partial<SlidingWindowConfig>>('std-sliding-window-strategy', {
  factory: createStrategy,
  config: { ...SLIDING_WINDOW_DEFAULTS },
});
