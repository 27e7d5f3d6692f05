import type { JsonSchema } from '@ctxkit/core';

import { projectOnSchema } from './object-projection';

const root: JsonSchema = {
  type: 'object',
  $defs: {
    passenger: {
      type: 'object',
      properties: { first_name: { type: 'string' }, last_name: { type: 'string' }, dob: { type: 'string' } },
    },
  },
  properties: {
    reservation: {
      type: 'object',
      properties: {
        reservation_id: { type: 'string' },
        total_baggages: { type: 'integer' },
        passengers: { type: 'array', items: { $ref: '#/$defs/passenger' } },
        payments: {
          type: 'array',
          items: {
            type: 'object',
            properties: { payment_id: { type: 'string', 'x-ctxkit-keys': ['id'] }, last_four: { type: 'string' } },
          },
        },
      },
    },
  },
};
const reservation = (root['properties'] as Record<string, JsonSchema>)['reservation']!;

describe('projectOnSchema', () => {
  describe('#project', () => {
    it('keeps the declared properties at any depth, follows $ref and drops the rest', () => {
      const value = {
        reservation_id: 'NO6JO3',
        created_at: '2024-05-08',
        total_baggages: '2',
        passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05', seat: '3A' }, 'not a passenger'],
      };
      expect(projectOnSchema(value, reservation, root)).toEqual({
        reservation_id: 'NO6JO3',
        total_baggages: 2,
        passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05' }],
      });
    });

    it(
      'reads a map of objects as an array, finds properties under x-ctxkit-keys and converts numbers to ' + 'strings',
      () => {
        const value = {
          reservation_id: 'X',
          payments: { credit_card_1: { id: 'credit_card_1', last_four: 7447 }, gift_card_2: { id: 'gift_card_2' } },
        };
        expect(projectOnSchema(value, reservation, root)).toEqual({
          reservation_id: 'X',
          payments: [{ payment_id: 'credit_card_1', last_four: '7447' }, { payment_id: 'gift_card_2' }],
        });
      },
    );

    it('gives nothing for a value with none of the properties', () => {
      expect(projectOnSchema({ city: 'Austin' }, reservation, root)).toBeUndefined();
      expect(projectOnSchema('NO6JO3', reservation, root)).toBeUndefined();
    });
  });
});
