import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import type { SummarizationConfig } from './summarization-config';

// The plugin as a host loads it: plugin.json read and validated, each case's config validated by its
// configSchema with the defaults applied; the factory from the sources (the entry is their build).
const plugin = path.join(__dirname, '..');

// The offline extractive summarizer (no LLM): the suite's context has no client. A small threshold
// makes folds happen inside the suite's conversations.
runConformance<SummarizationConfig>('std-summarization-strategy (offline summarizer)', {
  plugin,
  factory: createStrategy,
  config: { threshold: 3, batchTurns: 2, summaryMaxTokens: 256 },
});

// With a language model that answers a well-formed summary every time.
runConformance<SummarizationConfig>('std-summarization-strategy (scripted LLM)', {
  plugin,
  factory: createStrategy,
  config: { threshold: 3, batchTurns: 2, summaryMaxTokens: 256 },
  llm: '<summary>\nThe user and the assistant discussed earlier turns.\n</summary>',
  cases: ['hostile', 'budget', 'conversation'],
});

// Cut back to 60% of the room when the history overflows; the summary sent last may be held.
runConformance<SummarizationConfig>('std-summarization-strategy (cutBackRatio 0.6, offline summarizer)', {
  plugin,
  factory: createStrategy,
  config: { threshold: 3, batchTurns: 2, summaryMaxTokens: 256, cutBackRatio: 0.6 },
  cases: ['property', 'conversation'],
});

// With recall: the summary, the recalled turns and the newest history share the room.
runConformance<SummarizationConfig>('std-summarization-strategy (recall, offline summarizer)', {
  plugin,
  factory: createStrategy,
  config: { threshold: 3, batchTurns: 2, summaryMaxTokens: 256, recall: { minRecentTokens: 0 } } as never,
  cases: ['property', 'hostile', 'long-history', 'conversation'],
});
