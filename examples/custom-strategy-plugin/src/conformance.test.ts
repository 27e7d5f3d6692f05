import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './index';

// The shared conformance suite, as every strategy plugin runs it: budget, tool-call pairs, newest
// user message, no mutation, nothing silently lost, determinism, on generated, hostile and real conversations.
runConformance('example-pinned-messages-strategy', { factory: createStrategy, config: { pinMarkers: ['📌', '[pin]', 'reservation'] } });
