import { contentText } from '@ctxkit/core/strategy-kit';

import { type CodingAgentResult, runCodingAgent } from './main';

describe('coding-agent', () => {
  describe('#runCodingAgent', () => {
    let result: CodingAgentResult;
    const lines: string[] = [];

    beforeAll(async () => {
      result = await runCodingAgent({ log: (line) => lines.push(line) });
    });

    it('replays the OpenHands run offline at a 16K window, every payload within its budget', () => {
      expect(result.offline).toBe(true);
      expect(lines[0]).toMatch(/std-tool-output-cache-strategy.*local-16k.*offline/);
      expect(result.steps.length).toBeGreaterThan(20);
      for (const step of result.steps) expect(step.tokensSent).toBeLessThanOrEqual(step.available);
    });

    it(
      'trims old outputs to placeholders, micro-compacts old results and compacts the history, and prints ' + 'each',
      () => {
        expect(result.steps.some((step) => (step.reductions.trimmed ?? 0) > 0)).toBe(true);
        expect(result.steps.some((step) => (step.reductions['micro-compacted'] ?? 0) > 0)).toBe(true);
        expect(result.compactions.length).toBeGreaterThan(0);
        for (const compaction of result.compactions) {
          expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
          expect(compaction.transcriptRef).toMatch(/transcript_\d+/);
        }
        const sent = result.requests
          .map((request) => request.messages.map((message) => contentText(message.content ?? null)).join('\n'))
          .join('\n');
        expect(sent).toMatch(/\[tool output trimmed; ref=to_[0-9a-f]{32}\]/);
        expect(sent).toMatch(/\[Previous: used (execute_bash|str_replace_editor); ref=to_[0-9a-f]{32}\]/);
        expect(lines.some((line) => /trimmed \d+/.test(line))).toBe(true);
        expect(lines.some((line) => /micro-compacted \d+/.test(line))).toBe(true);
        expect(lines.some((line) => /compaction \(auto\)/.test(line))).toBe(true);
      },
    );

    it('lets the model expand a trimmed output with tool_output_cache and get it back byte for byte', () => {
      expect(result.expansions.length).toBeGreaterThan(0);
      for (const expansion of result.expansions) {
        expect(expansion.identical).toBe(true);
        expect(expansion.bytes).toBeGreaterThan(0);
      }
      expect(result.events['tool-output-cached']).toBeGreaterThan(0);
    });

    it('sends the compacted history (retain + summary + recent steps) after a compaction', () => {
      const firstCompacted = result.steps.findIndex((step) => (step.reductions.compacted ?? 0) > 0);
      expect(firstCompacted).toBeGreaterThan(0);
      expect(result.steps[firstCompacted]!.messagesSent).toBeLessThan(result.steps[firstCompacted - 1]!.messagesSent);
      const afterCompaction = result.requests[firstCompacted]!.messages.map((message) =>
        contentText(message.content ?? null),
      ).join('\n');
      expect(afterCompaction).toContain('The agent explored the repository');
    });
  });
});
