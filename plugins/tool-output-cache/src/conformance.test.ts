import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './index';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

// The shared suite every strategy passes: budget, provider validity, immutability, nothing silently
// lost, stats, events, determinism. The suite's summarizer answer has <summary> tags, so
// compactions that the budget triggers succeed. Every family runs, the bundled tau-bench and
// OpenHands conversations included (long single-turn runs compacted more than once among them).
runConformance<ToolOutputCacheStrategyConfig>('std-tool-output-cache-strategy', {
  factory: createStrategy,
  config: {},
  llm: '<retain>conformance</retain><summary>Earlier turns, summarized.</summary>',
  cases: ['property', 'hostile', 'budget', 'long-history', 'conversation'],
});
