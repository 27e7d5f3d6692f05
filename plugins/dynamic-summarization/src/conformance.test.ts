import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './create-summarization-strategy';
import { SUMMARIZATION_DEFAULTS, type SummarizationConfig } from './summarization-config';

// The offline extractive summarizer (no LLM): the suite's context has no client. A small threshold
// makes folds happen inside the suite's conversations.
runConformance<SummarizationConfig>('std-summarization-strategy (offline summarizer)', {
  factory: createStrategy,
  config: { ...SUMMARIZATION_DEFAULTS, threshold: 3, batchTurns: 2, summaryMaxTokens: 256 },
});

// With a language model that answers a well-formed summary every time.
runConformance<SummarizationConfig>('std-summarization-strategy (scripted LLM)', {
  factory: createStrategy,
  config: { ...SUMMARIZATION_DEFAULTS, threshold: 3, batchTurns: 2, summaryMaxTokens: 256 },
  llm: '<summary>\nThe user and the assistant discussed earlier turns.\n</summary>',
  cases: ['hostile', 'budget', 'conversation'],
});
