import { compileStateSchema } from '../schema/state-schema';
import { mergeState } from './merge-state';

const schema = compileStateSchema(
  {
    type: 'object',
    properties: {
      destination: { type: 'string' },
      date: { type: 'string', format: 'date' },
      note: { type: ['string', 'null'] },
      seats: { type: 'integer', minimum: 1 },
    },
    required: ['destination', 'date'],
    additionalProperties: false,
  },
  'test',
);

describe('mergeState', () => {
  describe('#merge', () => {
    it('keeps fields absent from the answer and reports only changed fields', () => {
      const result = mergeState(
        schema,
        { destination: 'Seattle', note: 'window seat' },
        { date: '2024-05-20', destination: 'Seattle' },
      );
      expect(result).toEqual({
        ok: true,
        state: { destination: 'Seattle', note: 'window seat', date: '2024-05-20' },
        diff: [{ field: 'date', before: null, after: '2024-05-20' }],
      });
    });

    it('clears a field with an explicit null where the schema allows null', () => {
      const result = mergeState(schema, { destination: 'Seattle', note: 'window seat' }, { note: null });
      expect(result).toEqual({
        ok: true,
        state: { destination: 'Seattle' },
        diff: [{ field: 'note', before: 'window seat', after: null }],
      });
    });

    it('refuses an explicit null where the schema does not allow it', () => {
      const result = mergeState(schema, { destination: 'Seattle' }, { destination: null });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.join('\n')).toMatch(/\/destination/);
    });

    it('validates the merged state: formats, unknown fields and types are errors', () => {
      const result = mergeState(schema, {}, { date: 'next friday', city: 'x', seats: 0 });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.length).toBeGreaterThanOrEqual(3);
    });

    it('does not require the required fields of a partial state', () => {
      expect(mergeState(schema, {}, { seats: 2 }).ok).toBe(true);
    });

    it('never modifies the current state or the answer', () => {
      const current = Object.freeze({ destination: 'Seattle' });
      const answer = Object.freeze({ note: null, date: '2024-05-21' });
      expect(() => mergeState(schema, current, answer)).not.toThrow();
      expect(current).toEqual({ destination: 'Seattle' });
      expect(answer).toEqual({ note: null, date: '2024-05-21' });
    });
  });
});
