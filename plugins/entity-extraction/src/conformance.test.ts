import * as fs from 'node:fs';
import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

import { createStrategy } from './create-entity-extraction-strategy';
import type { EntityExtractionConfigInput } from './entity-extraction-config';

// The plugin as a host loads it: plugin.json read and validated, each case's config validated by its
// configSchema with the defaults applied; the factory from the sources (the entry is their build).
const plugin = path.join(__dirname, '..');
const airlineSchema = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'schemas', 'airline-booking.schema.json'), 'utf8'),
) as Record<string, unknown>;

// The offline extractor (no LLM): the suite's context has no client.
runConformance<EntityExtractionConfigInput>('std-entity-extraction-strategy (offline extractor)', {
  plugin,
  factory: createStrategy,
  config: { stateSchema: airlineSchema, recentTurns: 2, stateMaxTokens: 256 },
});

// With a language model that answers a valid (empty) update every time.
runConformance<EntityExtractionConfigInput>('std-entity-extraction-strategy (scripted LLM)', {
  plugin,
  factory: createStrategy,
  config: { stateSchema: airlineSchema, recentTurns: 1, stateMaxTokens: 256 },
  llm: '{"request": "change a flight"}',
  cases: ['hostile', 'budget', 'conversation'],
});

// Cut back to 40% of the room when the history overflows; the state block sent last may be held.
runConformance<EntityExtractionConfigInput>('std-entity-extraction-strategy (cutBackRatio 0.4, offline extractor)', {
  plugin,
  factory: createStrategy,
  config: { stateSchema: airlineSchema, recentTurns: 2, stateMaxTokens: 256, cutBackRatio: 0.4 },
  cases: ['property', 'conversation'],
});

// With recall: the state, the recalled turns and the newest history share the room.
runConformance<EntityExtractionConfigInput>('std-entity-extraction-strategy (recall, offline extractor)', {
  plugin,
  factory: createStrategy,
  config: { stateSchema: airlineSchema, recentTurns: 2, stateMaxTokens: 256, recall: { minRecentTokens: 0 } } as never,
  cases: ['property', 'hostile', 'long-history', 'conversation'],
});
