import { createTokenCounter } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';
import { toChatMessages } from '@ctxkit/openai-agents';

import { AIRLINE_SCENARIO, CODING_SCENARIO, main, type ReplayResult } from './main';

const counter = createTokenCounter({ model: 'gpt-4o' });

describe('openai-agents-agent', () => {
  let results: ReplayResult[];
  const lines: string[] = [];

  beforeAll(async () => {
    results = await main((line) => lines.push(line));
  }, 120_000);

  describe.each([
    ['tau-bench airline with std-summarization-strategy at 4,000', 0, 'summarized'],
    ['OpenHands with std-tool-output-cache-strategy at 16,000', 1, 'trimmed'],
  ] as const)('%s', (_name, at, reduction) => {
    const result = () => results[at]!;

    test('every request the model received is within the ceiling by an independent count', () => {
      const { calls, scenario } = result();
      expect(calls.length).toBeGreaterThan(20);
      for (const call of calls) expect(call.tokens).toBeLessThanOrEqual(scenario.maxContextTokens);
    });

    test('every request is valid for a provider: no orphan tool result, no call without its results', () => {
      for (const call of result().calls) expect(call.problems).toEqual([]);
    });

    test("every request holds its turn's user message, verbatim", () => {
      for (const call of result().calls) expect(call.newestUserPresent).toBe(true);
    });

    test('the conversation outgrows the ceiling, the strategy reduces it, and the session stores every item', () => {
      const { storedItems, recordedMessages, scenario, calls } = result();
      const whole = counter.countMessages(toChatMessages(storedItems));
      expect(whole).toBeGreaterThan(scenario.maxContextTokens);
      expect(calls.some((call) => (call.reductions[reduction] ?? 0) > 0)).toBe(true);
      expect(calls.at(-1)!.tokens).toBeLessThan(whole);
      expect(toChatMessages(storedItems).length).toBeGreaterThanOrEqual(recordedMessages);
      expect(storedItems.filter((item) => (item as { role?: string }).role === 'system')).toEqual([]);
    });

    test('the replay is faithful: each recorded tool call got its recorded output', () => {
      const { tools } = result();
      expect(tools.recorded).toBeGreaterThan(20);
      // the OpenHands run ends on `finish`, whose result was never recorded
      expect(tools.unrecorded.every((call) => call.startsWith('finish '))).toBe(true);
    });
  });

  test(
    "in the coding run the model reads a trimmed output back with the strategy's tool_output_cache, run by the " +
      'strategy',
    () => {
      const { readBack, inputs } = results[1]!;
      expect(readBack).toBeDefined();
      const { refId, request, output } = readBack!;
      expect(JSON.stringify(inputs[request - 1])).toContain(`[tool output trimmed; ref=${refId}]`);
      expect(output).toMatch(new RegExp(`^\\[tool_output_cache ref=${refId}: lines 1-\\d+ of \\d+, \\d+ bytes\\]`));
      // The page is the recorded output's first lines, numbered.
      const record = loadConversations('openhands-multi-swe-bench').find(
        (candidate) => candidate.id === CODING_SCENARIO.recordId,
      )!;
      const firstLine = output
        .split('\n')
        .find((line) => /^ *1\t/.test(line))!
        .replace(/^ *1\t/, '');
      expect(
        record.history.some(
          (message) => message.role === 'tool' && contentText(message.content).startsWith(`${firstLine}\n`),
        ),
      ).toBe(true);
      // The summarization strategy contributes no tools: nothing to read back there.
      expect(results[0]!.readBack).toBeUndefined();
    },
  );

  test('the scenarios are the ones the README describes', () => {
    expect(AIRLINE_SCENARIO).toMatchObject({ pluginId: 'std-summarization-strategy', maxContextTokens: 4000 });
    expect(CODING_SCENARIO).toMatchObject({ pluginId: 'std-tool-output-cache-strategy', maxContextTokens: 16000 });
    expect(lines[0]).toMatch(/^tau-bench airline, .* ceiling 4000 tokens$/);
    expect(lines.filter((line) => /model calls, peak \d+ of \d+ tokens/.test(line))).toHaveLength(2);
  });
});
