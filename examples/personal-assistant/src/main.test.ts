import { type PersonalAssistantResult, runPersonalAssistant } from './main';

describe('personal-assistant', () => {
  describe('#runPersonalAssistant', () => {
    let result: PersonalAssistantResult;
    const lines: string[] = [];

    beforeAll(async () => {
      result = await runPersonalAssistant({ llm: null, log: (line) => lines.push(line) });
    });

    it('recalls the January gift idea in a new conversation in May, after a restart', () => {
      expect(result.earlyFactRecalled).toBe(true);
      expect(result.recallBlock).toContain('For her birthday I want to get her a vintage Leica M6 film camera');
      const label = /\n\[11 January 2026 \d\d:\d\d UTC · session "new-year-planning" · #[0-2](–\d+)?\]\n/;
      expect(result.recallBlock).toMatch(label);
      expect(result.recall.hits).toEqual(
        expect.arrayContaining([expect.objectContaining({ sessionId: 'new-year-planning', from: 2, to: 3 })]),
      );
      expect(lines).toContain('restart: a new runtime on the same store directory');
    });

    it('sends the recalled turns as one quoted user message after the system prompt, within the budget', () => {
      expect(result.roles).toEqual(['system', 'user', 'user']);
      expect(result.recallBlock?.startsWith('Earlier turns, recalled')).toBe(true);
      expect(result.recallBlock?.endsWith('</recalled-turns>')).toBe(true);
      expect(result.recall).toMatchObject({ scope: 'resource', embedding: 'none' });
      expect(result.recall.tokens).toBeLessThanOrEqual(result.recall.allowanceTokens);
      expect(result.payloadTokens).toBeLessThanOrEqual(result.availableTokens);
    });

    it('shares recall between the conversations of one user as they happen', () => {
      const [first, ...later] = result.sessions;
      expect(first!.recalledFromEarlier).toEqual({});
      expect(later.find((session) => session.sessionId === 'farewell-cake')?.carriedEarlier).toBe(true);
    });
  });
});
