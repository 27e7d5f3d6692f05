import { ConfigSchemaError } from '@ctxkit/core';

import { compileStateSchema } from './state-schema';

describe('compileStateSchema', () => {
  describe('#compile', () => {
    it('lists the fields in schema order with required and null-accepting flags', () => {
      const compiled = compileStateSchema(
        {
          type: 'object',
          properties: { destination: { type: 'string' }, note: { type: ['string', 'null'] } },
          required: ['destination'],
        },
        'agent/std-entity-extraction-strategy',
      );
      expect(compiled.fields.map((field) => [field.name, field.required, field.allowsNull])).toEqual([
        ['destination', true, false],
        ['note', false, true],
      ]);
    });

    it('rejects a schema that does not compile with a typed error naming the owner', () => {
      expect(() =>
        compileStateSchema(
          { type: 'object', properties: { date: { type: 'strng' } } },
          'booking-agent/std-entity-extraction-strategy',
        ),
      ).toThrow(ConfigSchemaError);
      try {
        compileStateSchema(
          { type: 'object', properties: { code: { type: 'string', pattern: '([' } } },
          'booking-agent',
        );
      } catch (error) {
        expect((error as ConfigSchemaError).code).toBe('CTXKIT_CONFIG_SCHEMA_INVALID');
        expect((error as ConfigSchemaError).message).toMatch(/booking-agent/);
        expect((error as ConfigSchemaError).fix).toBeTruthy();
      }
      expect.assertions(4);
    });

    it('rejects a schema that is not an object schema, and required names that are not properties', () => {
      expect(() => compileStateSchema({ type: 'string' }, 'a')).toThrow(/must describe an object/);
      expect(() =>
        compileStateSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }, 'a'),
      ).toThrow(/not in "properties": b/);
    });

    it('compiles a 2020-12 schema when its $schema says so', () => {
      const compiled = compileStateSchema(
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { ids: { type: 'array', prefixItems: [{ type: 'string' }] } },
        },
        'a',
      );
      expect(compiled.validate({ ids: ['x'] })).toEqual([]);
      expect(compiled.validate({ ids: [1] })).not.toEqual([]);
    });
  });
});
