import { runNovelist } from './main';

describe('novelist-agent', () => {
  describe('#runNovelist', () => {
    it('writes every chapter offline while older chapters move into the summary', async () => {
      const lines: string[] = [];
      const { chapters, offline } = await runNovelist({ chapters: 8, log: (line) => lines.push(line) });
      expect(offline).toBe(true);
      expect(chapters).toHaveLength(8);
      expect(lines[0]).toMatch(/std-summarization-strategy.*offline/);
      const last = chapters[chapters.length - 1]!;
      expect(last.summarized).toBeGreaterThan(0);
      expect(last.memoryTokens).toBeGreaterThan(0);
      // Without summaries chapter 8 would carry 15 history messages; the summary replaces the oldest.
      expect(last.messagesSent).toBeLessThan(1 + 15);
    });
  });
});
