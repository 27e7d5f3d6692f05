import { comparisonTokens, isNearDuplicate } from './near-duplicates';

const same = (a: string, b: string): boolean => isNearDuplicate(comparisonTokens(a), comparisonTokens(b));

describe('isNearDuplicate', () => {
  it('matches repeats with small changes, and ignores bracketed date notes', () => {
    expect(
      same(
        'My sister lives in Boston and works at Fidelity.',
        'Oh nice, so your sister lives in Boston and works at Fidelity!',
      ),
    ).toBe(true);
    expect(same('I went there yesterday [7 May, 2023].', 'I went there yesterday.')).toBe(true);
  });

  it('keeps different statements apart', () => {
    expect(same('My sister lives in Boston.', 'My brother works in Denver as a nurse.')).toBe(false);
    expect(same('Yes.', 'No.')).toBe(false);
  });

  it('compares Japanese text by character pairs', () => {
    expect(same('私の妹は札幌に住んでいます。', '私の妹は札幌に住んでいますよ。')).toBe(true);
    expect(same('私の妹は札幌に住んでいます。', '兄は大阪で働いています。')).toBe(false);
  });
});
