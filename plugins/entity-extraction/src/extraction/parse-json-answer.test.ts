import { parseJsonAnswer } from './parse-json-answer';

describe('parseJsonAnswer', () => {
  describe('#parse', () => {
    it('reads a bare JSON object', () => {
      expect(parseJsonAnswer('{"destination":"SEA"}')).toEqual({ ok: true, value: { destination: 'SEA' } });
    });

    it('reads an object inside a json code fence with prose around it', () => {
      const answer = 'Here is the update:\n```json\n{"date": "2024-05-20"}\n```\nLet me know.';
      expect(parseJsonAnswer(answer)).toEqual({ ok: true, value: { date: '2024-05-20' } });
    });

    it('reads the first balanced object in prose, braces inside strings included', () => {
      expect(parseJsonAnswer('Sure! {"note": "a } brace", "n": {"x": 1}} done')).toEqual({
        ok: true,
        value: { note: 'a } brace', n: { x: 1 } },
      });
    });

    it('refuses arrays, empty answers and text without an object', () => {
      expect(parseJsonAnswer('[1,2]').ok).toBe(false);
      expect(parseJsonAnswer('   ').ok).toBe(false);
      expect(parseJsonAnswer('I could not find anything {not json').ok).toBe(false);
    });
  });
});
