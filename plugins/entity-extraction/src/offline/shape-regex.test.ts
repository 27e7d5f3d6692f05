import { shapeRegex } from './shape-regex';

describe('shapeRegex', () => {
  describe('#derive', () => {
    it('keeps run lengths of codes without lower-case letters', () => {
      expect(shapeRegex('HAT123')!.source).toBe('^[A-Z]{3}[0-9]{3}$');
      expect(shapeRegex('2024-05-20')!.test('2024-12-01')).toBe(true);
      expect(shapeRegex('HAT123')!.test('HAT1234')).toBe(false);
    });

    it('lets word-like identifiers vary in length', () => {
      expect(shapeRegex('mia_li_3668')!.source).toBe('^[a-z]+_[a-z]+_[0-9]+$');
      expect(shapeRegex('mia_li_3668')!.test('sophia_martin_4574')).toBe(true);
      expect(shapeRegex('Mia')!.test('Evelyn')).toBe(true);
      expect(shapeRegex('Mia')!.test('evelyn')).toBe(false);
    });

    it('returns null for an empty example', () => {
      expect(shapeRegex('  ')).toBeNull();
    });
  });
});
