import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';

import { runSupportAgent, type SupportAgentResult } from './main';

describe('customer-support-agent', () => {
  describe('#runSupportAgent', () => {
    let result: SupportAgentResult;
    const lines: string[] = [];

    beforeAll(async () => {
      result = await runSupportAgent({ log: (line) => lines.push(line) });
    });

    it('replays every customer turn of task-15 offline, each payload within the budget', () => {
      expect(result.offline).toBe(true);
      expect(lines[0]).toMatch(/std-sliding-window-strategy, budget 4200 tokens.*offline/);
      expect(result.turns).toHaveLength(15);
      for (const turn of result.turns) expect(turn.tokensSent).toBeLessThanOrEqual(turn.available);
    });

    it('drops the oldest turns once the budget is full and reports each drop', () => {
      const first = result.turns[0]!;
      const last = result.turns[result.turns.length - 1]!;
      expect(first.dropped).toBe(0);
      expect(last.dropped).toBeGreaterThan(last.historyMessages / 2);
      expect(result.historyTrimEvents).toBeGreaterThan(0);
      const lastRequest = result.requests[result.requests.length - 1]!;
      expect(
        lastRequest.messages.some((message) => contentText(message.content ?? null).includes(first.userText)),
      ).toBe(false);
      expect(lines.some((line) => /turn 15: .* 24 of 38 history messages dropped/.test(line))).toBe(true);
    });

    it('always sends the system prompt first, the newest customer message, and whole tool-call groups', () => {
      const seen: number[] = [];
      for (const request of result.requests) {
        expect(request.messages[0]!.role).toBe('system');
        expect(findPayloadProblems(request.messages)).toEqual([]);
        const users = request.messages.filter((message) => message.role === 'user');
        const newest = result.turns.findIndex(
          (turn) => turn.userText === contentText(users[users.length - 1]!.content),
        );
        expect(newest).toBeGreaterThanOrEqual(seen[seen.length - 1] ?? 0);
        seen.push(newest);
      }
      expect(new Set(seen).size).toBe(result.turns.length);
    });
  });
});
