import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

// The shared suite every strategy passes: budget, provider validity, immutability, nothing silently
// lost, stats, events, determinism. The plugin is loaded as a host loads it: plugin.json read and
// validated, its entry imported by the runtime's loader, each case's config validated by its
// configSchema with the defaults applied. The suite's summarizer answer has <summary> tags, so
// compactions that the budget triggers succeed. Every family runs, the bundled tau-bench and
// OpenHands conversations included (long single-turn runs compacted more than once among them), and
// the small-budget sessions whose every reduction (micro-compactions among them) has its one event.
runConformance<ToolOutputCacheStrategyConfig>('std-tool-output-cache-strategy', {
  plugin: path.join(__dirname, '..'),
  config: {},
  llm: '<retain>conformance</retain><summary>Earlier turns, summarized.</summary>',
  cases: ['property', 'hostile', 'budget', 'long-history', 'reporting', 'conversation'],
});

// Cache-stable: replaced outputs stay replaced, the view is relieved and the window cut back to 80%
// in one go, and the first groups are kept in front of a cut window.
runConformance<ToolOutputCacheStrategyConfig>(
  'std-tool-output-cache-strategy (cutBackRatio 0.8, keepFirstShare 0.35)',
  {
    plugin: path.join(__dirname, '..'),
    config: { cutBackRatio: 0.8, keepFirstShare: 0.35 },
    llm: '<retain>conformance</retain><summary>Earlier turns, summarized.</summary>',
    cases: ['property', 'conversation'],
  },
);
