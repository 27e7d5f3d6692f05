import fc from 'fast-check';

import { type CompiledStateSchema, compileStateSchema } from '../schema/state-schema';
import { fieldRecognizer, type ScalarFieldRecognizer } from './field-recognizer';
import { SchemaVerdicts } from './schema-verdicts';

const schema = compileStateSchema(
  {
    type: 'object',
    properties: {
      code: { type: 'string', pattern: '^[A-Z]{3}$' },
      codes: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{3}$' }, maxItems: 2 },
      seats: { type: 'integer', minimum: 1 },
    },
  },
  'test',
);

function scalarRecognizer(name: string): ScalarFieldRecognizer {
  const recognizer = fieldRecognizer(
    schema.fields.find((field) => field.name === name)!,
    schema.schema,
  );
  if (recognizer?.kind !== 'scalar') throw new Error(`${name} is not a scalar field`);
  return recognizer;
}

/** The schema, counting the validations it runs. */
function counted(): { schema: CompiledStateSchema; validations: Array<[string, unknown]> } {
  const validations: Array<[string, unknown]> = [];
  return {
    validations,
    schema: {
      ...schema,
      acceptsValue: (name, value) => (validations.push([name, value]), schema.acceptsValue(name, value)),
    },
  };
}

describe('SchemaVerdicts', () => {
  describe('#accepts', () => {
    it("gives the schema's verdict on a value, as an item for an array field", () => {
      fc.assert(
        fc.property(
          fc.constantFrom('code', 'codes'),
          fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('SEA', 'JFK', 'sea')),
          (field, value) => {
            const verdicts = new SchemaVerdicts(schema);
            const recognizer = scalarRecognizer(field);
            expect(verdicts.accepts(recognizer, value)).toBe(
              schema.acceptsValue(field, field === 'codes' ? [value] : value),
            );
          },
        ),
      );
      const verdicts = new SchemaVerdicts(schema);
      expect(verdicts.accepts(scalarRecognizer('seats'), 2)).toBe(true);
      expect(verdicts.accepts(scalarRecognizer('seats'), 0)).toBe(false);
    });

    it('validates each value once per field, however often it is asked, and tells a number from its text', () => {
      const { schema: counting, validations } = counted();
      const verdicts = new SchemaVerdicts(counting);
      const code = scalarRecognizer('code');
      const codes = scalarRecognizer('codes');
      for (let round = 0; round < 3; round++) {
        for (const value of ['SEA', 'JFK', 'sea', 'SEA']) {
          verdicts.accepts(code, value);
          verdicts.accepts(codes, value);
        }
      }
      verdicts.accepts(scalarRecognizer('seats'), 2);
      verdicts.accepts(scalarRecognizer('seats'), '2' as unknown as number);
      expect(validations).toEqual([
        ['code', 'SEA'],
        ['codes', ['SEA']],
        ['code', 'JFK'],
        ['codes', ['JFK']],
        ['code', 'sea'],
        ['codes', ['sea']],
        ['seats', 2],
        ['seats', '2'],
      ]);
    });
  });
});
