import fc from 'fast-check';

import { enumMentions, textTokens } from './text-candidates';

const SEPARATOR = /[\s,;()[\]{}"'`<>!?*|]/;

describe('textTokens', () => {
  describe('#split', () => {
    it(
      'splits at white space and punctuation, keeps ids, dates and e-mails whole, and trims leading and trailing ' +
        'marks',
      () => {
        expect(textTokens('Fly SEA→JFK on 2024-05-20, ref #4595: mail a.b@c.io. (urgent!)')).toEqual([
          { value: 'Fly', position: 0 },
          { value: 'SEA→JFK', position: 4 },
          { value: 'on', position: 12 },
          { value: '2024-05-20', position: 15 },
          { value: 'ref', position: 27 },
          { value: '4595', position: 32 },
          { value: 'mail', position: 38 },
          { value: 'a.b@c.io', position: 43 },
          { value: 'urgent', position: 54 },
        ]);
        expect(textTokens('  -+. ... ')).toEqual([]);
        expect(textTokens('東京\u3000大阪')).toEqual([
          { value: '東京', position: 0 },
          { value: '大阪', position: 3 },
        ]);
      },
    );

    it('gives the text at each position, in order, without separators or trimmed marks at either end', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.string({ maxLength: 5 }),
              fc.constantFrom(' ', '\n', '\u3000', ', ', '#', '.', ':', '-', '/', '+', 'a.b', 'x_1'),
            ),
            { maxLength: 12 },
          ),
          (parts) => {
            const text = parts.join('');
            const tokens = textTokens(text);
            let previousEnd = 0;
            for (const token of tokens) {
              expect(text.slice(token.position, token.position + token.value.length)).toBe(token.value);
              expect(token.position).toBeGreaterThanOrEqual(previousEnd);
              expect(SEPARATOR.test(token.value)).toBe(false);
              expect('.:#-/+'.includes(token.value[0]!)).toBe(false);
              expect('.:-/+'.includes(token.value[token.value.length - 1]!)).toBe(false);
              previousEnd = token.position + token.value.length;
            }
            // Splitting the same text again gives the same tokens.
            expect(textTokens(text)).toEqual(tokens);
          },
        ),
      );
    });
  });
});

describe('enumMentions', () => {
  const cabins = ['economy', 'basic_economy', 'business'];

  describe('#find', () => {
    it('finds each mention, the longest of overlapping ones, whatever was searched before with the same values', () => {
      const text = 'Basic economy or business? Business. Not economy-plus';
      const expected = [
        { value: 'basic_economy', position: 0 },
        { value: 'business', position: 17 },
        { value: 'business', position: 27 },
        { value: 'economy', position: 41 },
      ];
      expect(enumMentions(text, cabins)).toEqual(expected);
      expect(enumMentions('economy', cabins)).toEqual([{ value: 'economy', position: 0 }]);
      expect(enumMentions('nothing here', cabins)).toEqual([]);
      expect(enumMentions(text, cabins)).toEqual(expected);
      expect(enumMentions(text, ['business'])).toEqual([expected[1], expected[2]]);
    });
  });
});
