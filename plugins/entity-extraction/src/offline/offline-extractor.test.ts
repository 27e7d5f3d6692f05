import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage } from '@ctxkit/core';
import { buildExtractionInput } from '../extraction/extraction-input';
import { compileStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { OfflineExtractor } from './offline-extractor';

const airline = compileStateSchema(JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'schemas', 'airline-booking.schema.json'), 'utf8')), 'test');

async function extract(history: ChatMessage[], state: EntityState = {}, schema = airline) {
  const extractor = new OfflineExtractor(schema);
  const input = buildExtractionInput(history, -1)!;
  return extractor.extract({ schema, state, input });
}

describe('OfflineExtractor', () => {
  describe('#extract', () => {
    it('fills pattern, format and enum fields from the user message', async () => {
      const outcome = await extract([
        { role: 'user', content: 'Hi, I am mia_li_3668. Please change reservation NO6JO3 to HAT136 on 2024-05-20 in business class.' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({
        user_id: 'mia_li_3668',
        reservation_ids: ['NO6JO3'],
        flight_numbers: ['HAT136'],
        dates: ['2024-05-20'],
        cabin: 'business',
      });
    });

    it('prefers the longest enum mention and matches spaces for underscores', async () => {
      const outcome = await extract([{ role: 'user', content: 'Basic economy please, one way.' }]);
      expect(outcome.ok && outcome.state).toEqual({ cabin: 'basic_economy', flight_type: 'one_way' });
    });

    it('leaves ambiguous scalar values to key cues: two airports in text fill neither origin nor destination', async () => {
      const text = await extract([{ role: 'user', content: 'From JFK to SEA.' }]);
      expect(text.ok && text.state).toEqual({});
      const cued = await extract([
        { role: 'user', content: 'From JFK to SEA.' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'search_direct_flight', arguments: '{"origin":"JFK","destination":"SEA","date":"2024-05-20"}' } }] },
        { role: 'tool', tool_call_id: 'c', content: '[]' },
        { role: 'user', content: 'ok' },
      ]);
      expect(cued.ok && cued.state).toEqual({ origin: 'JFK', destination: 'SEA', dates: ['2024-05-20'] });
    });

    it('reads tool outputs by key cue only, never by shape', async () => {
      const outcome = await extract([
        { role: 'user', content: 'my id is mia_li_3668' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' } }] },
        { role: 'tool', tool_call_id: 'c', content: '{"other_ids": ["NO6JO3", "AIXC49"], "flight_number": "HAT001"}' },
        { role: 'user', content: 'thanks' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({ user_id: 'mia_li_3668', flight_numbers: ['HAT001'] });
    });

    it('reads extra JSON keys named by x-ctxkit-keys', async () => {
      const outcome = await extract([
        { role: 'user', content: 'my id is mia_li_3668' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' } }] },
        { role: 'tool', tool_call_id: 'c', content: '{"reservations": ["NO6JO3", "AIXC49"]}' },
        { role: 'user', content: 'thanks' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({ user_id: 'mia_li_3668', reservation_ids: ['NO6JO3', 'AIXC49'] });
    });

    it('adds array items by union, keeps the newest up to maxItems, and the newest scalar mention wins', async () => {
      const outcome = await extract([{ role: 'user', content: 'Not HAT002, I meant HAT003. My id is a_b_1, sorry, a_b_2.' }], { flight_numbers: ['HAT001', 'HAT002'] });
      expect(outcome.ok && outcome.state).toEqual({ flight_numbers: ['HAT001', 'HAT002', 'HAT003'], user_id: 'a_b_2' });
      const capped = compileStateSchema({ type: 'object', properties: { codes: { type: 'array', items: { type: 'string', examples: ['AB12'] }, maxItems: 2 } } }, 't');
      const result = await extract([{ role: 'user', content: 'XY11 then ZZ22 then QQ33' }], {}, capped);
      expect(result.ok && result.state).toEqual({ codes: ['ZZ22', 'QQ33'] });
    });

    it('recognises date-time and email formats and example shapes, and ignores free-text fields', async () => {
      const schema = compileStateSchema(
        {
          type: 'object',
          properties: {
            email: { type: 'string', format: 'email' },
            when: { type: 'string', format: 'date-time' },
            ticket: { type: 'string', examples: ['TK-2041'] },
            notes: { type: 'string' },
            adults: { type: 'integer', enum: [1, 2, 3] },
          },
        },
        't',
      );
      const outcome = await extract([{ role: 'user', content: 'Mail me at mia.li@example.com about TK-9937 by 2024-05-20T10:00:00Z for 2 adults.' }], {}, schema);
      expect(outcome.ok && outcome.state).toEqual({ email: 'mia.li@example.com', when: '2024-05-20T10:00:00Z', ticket: 'TK-9937', adults: 2 });
    });

    it('changes nothing when nothing is recognisable and is deterministic', async () => {
      const history: ChatMessage[] = [{ role: 'user', content: 'Hello there, I need some help.' }];
      expect(await extract(history)).toEqual({ ok: true, state: {}, diff: [], attempts: 1 });
      const a = await extract([{ role: 'user', content: 'NO6JO3 and HAT136 on 2024-05-20' }]);
      const b = await extract([{ role: 'user', content: 'NO6JO3 and HAT136 on 2024-05-20' }]);
      expect(a).toEqual(b);
    });
  });
});
