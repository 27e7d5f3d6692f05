import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';

import { buildExtractionInput } from '../extraction/extraction-input';
import { compileStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { OfflineExtractor } from './offline-extractor';

const airline = compileStateSchema(
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'schemas', 'airline-booking.schema.json'), 'utf8')),
  'test',
);

async function extract(history: ChatMessage[], state: EntityState = {}, schema = airline, now?: number) {
  const extractor = new OfflineExtractor(schema);
  const input = buildExtractionInput(history, -1, extractor.trigger)!;
  return extractor.extract({ schema, state, input, ...(now === undefined ? {} : { now }) });
}

function call(id: string, name: string, args: Record<string, unknown>): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}

const userDetails = {
  name: { first_name: 'Mia', last_name: 'Li' },
  address: { city: 'Austin' },
  dob: '1990-04-05',
  payment_methods: {
    credit_card_4421486: { source: 'credit_card', brand: 'visa', last_four: '7447', id: 'credit_card_4421486' },
    certificate_7504069: { source: 'certificate', amount: 250, id: 'certificate_7504069' },
  },
  saved_passengers: [{ first_name: 'Amelia', last_name: 'Ahmed', dob: '1957-03-21' }],
  membership: 'gold',
  reservations: ['NO6JO3', 'AIXC49'],
};

const reservationDetails = {
  reservation_id: 'NO6JO3',
  user_id: 'mia_li_3668',
  origin: 'SEA',
  destination: 'DFW',
  flight_type: 'one_way',
  cabin: 'business',
  flights: [{ origin: 'SEA', destination: 'DFW', flight_number: 'HAT113', date: '2024-05-26', price: 117 }],
  passengers: [{ first_name: 'Omar', last_name: 'Rossi', dob: '1970-06-06' }],
  payment_history: [{ payment_id: 'gift_card_8190333', amount: 830 }],
  created_at: '2024-05-08T14:32:07',
  total_baggages: 1,
  nonfree_baggages: 0,
  insurance: 'no',
};

describe('OfflineExtractor', () => {
  describe('#extract', () => {
    it('fills pattern, format and enum fields from the user message', async () => {
      const outcome = await extract([
        {
          role: 'user',
          content: 'Hi, I am mia_li_3668. Please change reservation NO6JO3 to HAT136 on 2024-05-20 in business class.',
        },
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

    it(
      'leaves ambiguous scalar values to key cues: two airports in text fill neither origin nor ' + 'destination',
      async () => {
        const text = await extract([{ role: 'user', content: 'From JFK to SEA.' }]);
        expect(text.ok && text.state).toEqual({});
        const cued = await extract([
          { role: 'user', content: 'From JFK to SEA.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c',
                type: 'function',
                function: {
                  name: 'search_direct_flight',
                  arguments: '{"origin":"JFK","destination":"SEA","date":"2024-05-20"}',
                },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'c', content: '[]' },
          { role: 'user', content: 'ok' },
        ]);
        expect(cued.ok && cued.state).toEqual({ origin: 'JFK', destination: 'SEA', dates: ['2024-05-20'] });
      },
    );

    it('reads tool outputs by key cue only, never by shape', async () => {
      const outcome = await extract([
        { role: 'user', content: 'my id is mia_li_3668' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c',
              type: 'function',
              function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: '{"other_ids": ["NO6JO3", "AIXC49"], "flight_number": "HAT001"}' },
        { role: 'user', content: 'thanks' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({ user_id: 'mia_li_3668', flight_numbers: ['HAT001'] });
    });

    it('reads extra JSON keys named by x-ctxkit-keys', async () => {
      const outcome = await extract([
        { role: 'user', content: 'my id is mia_li_3668' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c',
              type: 'function',
              function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: '{"reservations": ["NO6JO3", "AIXC49"]}' },
        { role: 'user', content: 'thanks' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({ user_id: 'mia_li_3668', reservation_ids: ['NO6JO3', 'AIXC49'] });
    });

    it('adds array items by union, keeps the newest up to maxItems, and the newest scalar mention wins', async () => {
      const outcome = await extract(
        [{ role: 'user', content: 'Not HAT002, I meant HAT003. My id is a_b_1, sorry, a_b_2.' }],
        { flight_numbers: ['HAT001', 'HAT002'] },
      );
      expect(outcome.ok && outcome.state).toEqual({ flight_numbers: ['HAT001', 'HAT002', 'HAT003'], user_id: 'a_b_2' });
      const capped = compileStateSchema(
        {
          type: 'object',
          properties: { codes: { type: 'array', items: { type: 'string', examples: ['AB12'] }, maxItems: 2 } },
        },
        't',
      );
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
      const outcome = await extract(
        [
          {
            role: 'user',
            content: 'Mail me at mia.li@example.com about TK-9937 by 2024-05-20T10:00:00Z for 2 adults.',
          },
        ],
        {},
        schema,
      );
      expect(outcome.ok && outcome.state).toEqual({
        email: 'mia.li@example.com',
        when: '2024-05-20T10:00:00Z',
        ticket: 'TK-9937',
        adults: 2,
      });
    });

    it('changes nothing when nothing is recognisable and is deterministic', async () => {
      const history: ChatMessage[] = [{ role: 'user', content: 'Hello there, I need some help.' }];
      expect(await extract(history)).toEqual({ ok: true, state: {}, diff: [], attempts: 1 });
      const a = await extract([{ role: 'user', content: 'NO6JO3 and HAT136 on 2024-05-20' }]);
      const b = await extract([{ role: 'user', content: 'NO6JO3 and HAT136 on 2024-05-20' }]);
      expect(a).toEqual(b);
    });
    it(
      'fills objects and arrays of objects from tool results read under the function name and nested ' + 'keys',
      async () => {
        const outcome = await extract([
          { role: 'user', content: 'I am mia_li_3668.' },
          call('c1', 'get_user_details', { user_id: 'mia_li_3668' }),
          { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(userDetails) },
          call('c2', 'get_reservation_details', { reservation_id: 'NO6JO3' }),
          { role: 'tool', tool_call_id: 'c2', content: JSON.stringify(reservationDetails) },
        ]);
        const state = outcome.ok ? outcome.state : {};
        expect(state['customer']).toEqual({
          name: { first_name: 'Mia', last_name: 'Li' },
          dob: '1990-04-05',
          membership: 'gold',
          saved_passengers: [{ first_name: 'Amelia', last_name: 'Ahmed', dob: '1957-03-21' }],
        });
        expect(state['payment_methods']).toEqual([
          { payment_id: 'credit_card_4421486', source: 'credit_card', brand: 'visa', last_four: '7447' },
          { payment_id: 'certificate_7504069', source: 'certificate', amount: 250 },
        ]);
        expect(state['reservations']).toEqual([
          {
            reservation_id: 'NO6JO3',
            origin: 'SEA',
            destination: 'DFW',
            flight_type: 'one_way',
            cabin: 'business',
            flights: [{ flight_number: 'HAT113', date: '2024-05-26', origin: 'SEA', destination: 'DFW' }],
            passengers: [{ first_name: 'Omar', last_name: 'Rossi', dob: '1970-06-06' }],
            payment_history: [{ payment_id: 'gift_card_8190333', amount: 830 }],
            total_baggages: 1,
            nonfree_baggages: 0,
            insurance: 'no',
          },
        ]);
        expect(state['passengers']).toEqual([{ first_name: 'Omar', last_name: 'Rossi', dob: '1970-06-06' }]);
        expect(state['reservation_ids']).toEqual(['NO6JO3', 'AIXC49']);
        expect(state['payment_ids']).toEqual(['gift_card_8190333']);
        expect(state['user_id']).toBe('mia_li_3668');
      },
    );

    it('updates an array item with the same required values instead of adding it again', async () => {
      const cancelled = { ...reservationDetails, status: 'cancelled' };
      const outcome = await extract(
        [
          call('c', 'cancel_reservation', { reservation_id: 'NO6JO3' }),
          { role: 'tool', tool_call_id: 'c', content: JSON.stringify(cancelled) },
        ],
        { reservations: [{ reservation_id: 'NO6JO3', cabin: 'economy' }, { reservation_id: 'AIXC49' }] },
      );
      const reservations = (outcome.ok ? outcome.state['reservations'] : []) as Array<Record<string, unknown>>;
      expect(reservations.map((r) => [r['reservation_id'], r['cabin'], r['status']])).toEqual([
        ['NO6JO3', 'business', 'cancelled'],
        ['AIXC49', undefined, undefined],
      ]);
    });

    it('lets a looked-up value fill an empty scalar field but never replace what the user said', async () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'I want to fly economy.' },
        call('c', 'get_reservation_details', { reservation_id: 'NO6JO3' }),
        { role: 'tool', tool_call_id: 'c', content: JSON.stringify(reservationDetails) },
      ];
      const outcome = await extract(history);
      expect(outcome.ok && [outcome.state['cabin'], outcome.state['origin'], outcome.state['destination']]).toEqual([
        'economy',
        'SEA',
        'DFW',
      ]);
      const kept = await extract(history.slice(1), { origin: 'JFK' });
      expect(kept.ok && [kept.state['cabin'], kept.state['origin']]).toEqual(['business', 'JFK']);
    });

    it('turns dates written in words into ISO dates, the year taken from the conversation or the clock', async () => {
      const inferred = await extract([
        call('c', 'get_reservation_details', { reservation_id: 'NO6JO3' }),
        { role: 'tool', tool_call_id: 'c', content: JSON.stringify(reservationDetails) },
        { role: 'user', content: 'Move it to May 28th, or the 1st of June if full; back on 3 June 2025.' },
      ]);
      expect(inferred.ok && inferred.state['dates']).toEqual(['2024-05-26', '2024-05-28', '2024-06-01', '2025-06-03']);
      const clock = await extract(
        [{ role: 'user', content: 'I fly on May 20th.' }],
        {},
        airline,
        Date.UTC(2026, 10, 23),
      );
      expect(clock.ok && clock.state).toEqual({ dates: ['2026-05-20'] });
      const none = await extract([{ role: 'user', content: 'I fly on May 20th.' }]);
      expect(none.ok && none.state).toEqual({});
    });

    it(
      'applies corrections: a later scalar value replaces an earlier one, a negated mention does not ' + 'count',
      async () => {
        const first = await extract([{ role: 'user', content: 'Business class please, round trip.' }]);
        expect(first.ok && first.state).toEqual({ cabin: 'business', flight_type: 'round_trip' });
        const state = first.ok ? first.state : {};
        const corrected = await extract(
          [{ role: 'user', content: 'Actually make it economy instead of business.' }],
          state,
        );
        expect(corrected.ok && corrected.state).toEqual({ cabin: 'economy', flight_type: 'round_trip' });
        expect(corrected.ok && corrected.diff).toEqual([{ field: 'cabin', before: 'business', after: 'economy' }]);
        const negated = await extract([{ role: 'user', content: 'Economy, not basic economy.' }], {
          cabin: 'business',
        });
        expect(negated.ok && negated.state).toEqual({ cabin: 'economy' });
      },
    );

    it('reads insurance from the booking tools only, never from a bare yes or no', async () => {
      const outcome = await extract([
        { role: 'user', content: 'No, thanks. Yes, book it.' },
        call('c', 'book_reservation', {
          user_id: 'mia_li_3668',
          insurance: 'no',
          total_baggages: 2,
          nonfree_baggages: 1,
        }),
        { role: 'tool', tool_call_id: 'c', content: 'Error: payment amount does not add up' },
      ]);
      expect(outcome.ok && outcome.state).toEqual({
        user_id: 'mia_li_3668',
        insurance: 'no',
        total_baggages: 2,
        nonfree_baggages: 1,
      });
    });
  });

  describe('#extract a long history', () => {
    const coding = compileStateSchema(
      {
        type: 'object',
        properties: {
          repository: { type: 'string', pattern: '[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+' },
          branch: { type: 'string', pattern: '^feature-[0-9]+$' },
          files: { type: 'array', items: { type: 'string', pattern: '[a-z/]+\\.ts' } },
          buildCommand: { type: 'string', examples: ['make test', 'make-j4'] },
          status: { type: 'string', enum: ['editing', 'testing'] },
        },
      },
      'test',
    );
    const MODULES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
    /** Coding turns; with `naming`, each user message names one of five files. */
    const turns = (count: number, naming = false): ChatMessage[] =>
      Array.from({ length: count }, (_, turn): ChatMessage[] => [
        {
          role: 'user',
          content:
            `Please check step ${turn % 7} of ${naming ? `src/${MODULES[turn % 5]}.ts` : 'the build'} and ` +
            `fix what fails.`,
        },
        call(`c${turn}`, 'read_file', { path: `src/module-${turn % 5}.ts`, limit: 400 }),
        { role: 'tool', tool_call_id: `c${turn}`, content: `{"lines": ${turn}, "text": "const value = 1;"}` },
      ]).flat();

    it('finds values in free text whether their pattern is anchored or not, among many messages', async () => {
      const history: ChatMessage[] = [
        ...turns(40),
        {
          role: 'user',
          content: 'Fix src/lib/a.ts in ponylang/ponyc, branch feature-12; build with make-j4, we are testing.',
        },
        ...turns(40),
      ];
      const outcome = await extract(history, {}, coding);
      expect(outcome.ok && outcome.state).toEqual({
        repository: 'ponylang/ponyc',
        branch: 'feature-12',
        files: ['src/lib/a.ts'],
        buildCommand: 'make-j4',
        status: 'testing',
      });
    });

    it('validates each value once per field however often the messages repeat it', async () => {
      const validationsOver = async (history: ChatMessage[]) => {
        let validations = 0;
        const counting = {
          ...coding,
          acceptsValue: (name: string, value: unknown) => (validations++, coding.acceptsValue(name, value)),
        };
        const outcome = await extract(
          [
            ...history,
            { role: 'user', content: 'Now ponylang/ponyc: src/a.ts src/b.ts src/a.ts, make-j4 and make-j4.' },
          ],
          {},
          counting,
        );
        expect(outcome.ok && outcome.state['files']).toEqual([
          ...MODULES.map((name) => `src/${name}.ts`),
          'src/a.ts',
          'src/b.ts',
        ]);
        return validations;
      };
      // Every value of 60 turns already comes up in the first 10 (steps repeat every 7 turns, files every 5).
      const overTen = await validationsOver(turns(10, true));
      expect(overTen).toBeGreaterThan(5);
      expect(await validationsOver(turns(60, true))).toBe(overTen);
    });

    it('parses no JSON text that holds none of the keys the fields are read under', async () => {
      const parse = jest.spyOn(JSON, 'parse');
      try {
        await extract(turns(30), {}, coding);
        expect(parse).not.toHaveBeenCalled();
        await extract(
          [
            call('c', 'set_repository', { repository: 'a/b' }),
            { role: 'tool', tool_call_id: 'c', content: '{"ok": true}' },
          ],
          {},
          coding,
        );
        expect(parse).toHaveBeenCalledTimes(1);
      } finally {
        parse.mockRestore();
      }
    });
  });
});
