import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { buildExtractionInput } from '../extraction/extraction-input';
import { compileStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { OfflineExtractor } from './offline-extractor';

const airline = compileStateSchema(
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'schemas', 'airline-booking.schema.json'), 'utf8')),
  'test',
);
const extractor = new OfflineExtractor(airline);
const NOW = Date.UTC(2024, 4, 1);

/** Reads `history` as the strategy does over calls that each see it up to one of `ends` (a length), in order. */
class Reader {
  state: EntityState = {};
  private read = -1;

  constructor(private readonly history: readonly ChatMessage[]) {}

  async readTo(end: number): Promise<EntityState> {
    const input = buildExtractionInput(this.history.slice(0, end), this.read, extractor.trigger);
    if (!input) return this.state;
    const outcome = await extractor.extract({ schema: airline, state: this.state, input, now: NOW });
    if (outcome.ok) this.state = outcome.state;
    this.read = input.sourceMessageIndex;
    return this.state;
  }
}

/** The state after each length of `history` (index: the length), read turn by turn: a call after every message. */
async function turnByTurn(history: readonly ChatMessage[]): Promise<EntityState[]> {
  const reader = new Reader(history);
  const states: EntityState[] = [{}];
  for (let end = 1; end <= history.length; end++) states.push(await reader.readTo(end));
  return states;
}

describe('OfflineExtractor', () => {
  describe('#history-split', () => {
    it(
      'gives the state of turn-by-turn reading however a tau-bench conversation is split into calls, all at once ' +
        'included',
      async () => {
        const records = loadConversations('tau-bench-airline');
        expect(records.length).toBeGreaterThan(100);
        for (const record of records) {
          const history = record.history;
          const expected = await turnByTurn(history);
          // All at once, over the whole conversation.
          expect({ id: record.id, state: await new Reader(history).readTo(history.length) }).toEqual({
            id: record.id,
            state: expected[history.length],
          });
          // Any prefix, split into any calls.
          await fc.assert(
            fc.asyncProperty(
              fc.integer({ min: 1, max: history.length }),
              fc.uniqueArray(fc.integer({ min: 1, max: history.length }), { maxLength: 5 }),
              async (length, cuts) => {
                const reader = new Reader(history);
                for (const end of [...cuts.filter((cut) => cut < length).sort((a, b) => a - b), length])
                  await reader.readTo(end);
                expect({ id: record.id, length, cuts, state: reader.state }).toEqual({
                  id: record.id,
                  length,
                  cuts,
                  state: expected[length],
                });
              },
            ),
            { numRuns: 3, seed: 20250101 },
          );
        }
      },
    );
  });
});
