import { isNegatedMention } from './negated-mention';

describe('isNegatedMention', () => {
  describe('#check', () => {
    it('treats a mention after a negation in the same clause as unwanted', () => {
      const text = "Economy, not business. Make it economy instead of basic economy; I don't want first.";
      expect(isNegatedMention(text, text.indexOf('business'))).toBe(true);
      expect(isNegatedMention(text, text.indexOf('basic economy'))).toBe(true);
      expect(isNegatedMention(text, text.indexOf('first'))).toBe(true);
      expect(isNegatedMention(text, 0)).toBe(false);
      expect(isNegatedMention(text, text.indexOf('economy instead'))).toBe(false);
    });

    it('ends the clause at punctuation and "but", and ignores "no" inside ids', () => {
      const text = 'No, economy. Not business but economy. Reservation NO6JO3 in business';
      expect(isNegatedMention(text, text.indexOf('economy'))).toBe(false);
      expect(isNegatedMention(text, text.lastIndexOf('economy'))).toBe(false);
      expect(isNegatedMention(text, text.lastIndexOf('business'))).toBe(false);
    });
  });
});
