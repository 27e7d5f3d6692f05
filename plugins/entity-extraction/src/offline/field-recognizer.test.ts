import { compileStateSchema } from '../schema/state-schema';
import { fieldRecognizer, type ScalarFieldRecognizer } from './field-recognizer';

const schema = compileStateSchema(
  {
    type: 'object',
    definitions: { code: { type: 'string', pattern: '[A-Z]{3}' } },
    properties: {
      repository: { type: 'string', pattern: '[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+' },
      userId: { type: 'string', pattern: '^[a-z]+_[0-9]+$' },
      ending: { type: 'string', pattern: '[0-9]+$' },
      bounded: { type: 'string', pattern: '\\bT[0-9]+' },
      ahead: { type: 'string', pattern: 'T(?=[0-9])' },
      behind: { type: 'string', pattern: '(?<!#)[0-9]{3}' },
      negated: { type: 'string', pattern: '[^ ]+\\.ts' },
      files: { type: 'array', items: { type: 'string', pattern: '[a-z]+\\.ts' } },
      viaRef: { $ref: '#/definitions/code' },
      itemsViaRef: { type: 'array', items: { $ref: '#/definitions/code' } },
      buildCommand: { type: 'string', examples: ['make test', 'make'] },
      spacedOnly: { type: 'string', examples: ['make test'] },
    },
  },
  'test',
);

function scalar(name: string): ScalarFieldRecognizer {
  const recognizer = fieldRecognizer(
    schema.fields.find((field) => field.name === name)!,
    schema.schema,
  );
  if (recognizer?.kind !== 'scalar') throw new Error(`${name} is not a scalar field`);
  return recognizer;
}

describe('fieldRecognizer', () => {
  describe('#pattern', () => {
    it("compiles the field's or item's own pattern as a Unicode expression, unanchored unless written so", () => {
      expect(scalar('repository').pattern?.test('see ponylang/ponyc now')).toBe(true);
      expect(scalar('repository').pattern?.flags).toBe('u');
      expect(scalar('userId').pattern?.test('x mia_3 y')).toBe(false);
      expect(scalar('files').pattern?.test('a.ts')).toBe(true);
      expect(scalar('buildCommand').pattern).toBeUndefined();
    });

    it('leaves out a pattern reached through a $ref (the validator decides alone)', () => {
      expect(scalar('viaRef').pattern).toBeUndefined();
      expect(scalar('itemsViaRef').pattern).toBeUndefined();
      expect(scalar('viaRef').validatedBySchema).toBe(true);
    });
  });

  describe('#textPattern', () => {
    it(
      'keeps a pattern without anchors or lookarounds, which a whole text matches whenever one of its tokens ' + 'does',
      () => {
        const repository = scalar('repository');
        expect(repository.textPattern).toBe(repository.pattern);
        expect(scalar('files').textPattern).toBeDefined();
      },
    );

    it('drops a pattern with anchors, word boundaries or lookarounds (and, as any `^`, a negated class)', () => {
      for (const name of ['userId', 'ending', 'bounded', 'ahead', 'behind', 'negated'])
        expect(scalar(name).textPattern).toBeUndefined();
      // The token "mia_3" matches while the text around it does not.
      expect(scalar('userId').pattern?.test('mia_3')).toBe(true);
      expect(scalar('userId').pattern?.test('ask mia_3 now')).toBe(false);
    });
  });

  describe('#tokenShapes', () => {
    it('keeps the shapes of examples without white space: a word-like token never holds a space', () => {
      expect(scalar('buildCommand').shapes.map((shape) => shape.source)).toEqual(['^[a-z]+\\s+[a-z]+$', '^[a-z]+$']);
      expect(scalar('buildCommand').tokenShapes.map((shape) => shape.source)).toEqual(['^[a-z]+$']);
      expect(scalar('spacedOnly').shapes).toHaveLength(1);
      expect(scalar('spacedOnly').tokenShapes).toEqual([]);
      expect(scalar('spacedOnly').readsText).toBe(true);
    });
  });
});
