import { createTokenCounter } from '@ctxkit/core';
import { toChatMessages } from '@ctxkit/langchain';
import { SystemMessage } from '@langchain/core/messages';

import { AIRLINE_SCENARIO, CODING_SCENARIO, main, type ModelSummariesResult, type ReplayResult } from './main';

const counter = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' });

describe('langchain-agent', () => {
  let results: ReplayResult[];
  const lines: string[] = [];

  beforeAll(async () => {
    results = await main((line) => lines.push(line));
  });

  describe.each([
    ['tau-bench airline with std-summarization-strategy at 4,000', 0, 'summarized'],
    ['OpenHands with std-tool-output-cache-strategy at 16,000', 1, 'trimmed'],
    ["tau-bench airline with summaries by the application's chat model", 2, 'summarized'],
  ] as const)('%s', (_name, at, reduction) => {
    const result = () => results[at]!;

    test('every request the model received is within the ceiling by an independent count (js-tiktoken o200k)', () => {
      const { calls, scenario } = result();
      expect(calls.length).toBeGreaterThan(20);
      for (const call of calls) expect(call.tokens).toBeLessThanOrEqual(scenario.maxContextTokens);
    });

    test(
      'every request is valid for a provider: no orphan tool result, no call without its results, one system ' +
        'message first',
      () => {
        for (const [index, call] of result().calls.entries()) {
          expect(call.problems).toEqual([]);
          const messages = result().requests[index]!.messages;
          expect(messages.filter((message) => message instanceof SystemMessage)).toEqual([messages[0]]);
        }
      },
    );

    test("every request holds its turn's user message, verbatim", () => {
      for (const call of result().calls) expect(call.newestUserPresent).toBe(true);
    });

    test(
      'the conversation outgrows the ceiling, the strategy reduces it, and the agent state keeps every ' + 'message',
      () => {
        const { finalMessages, recordedMessages, scenario, calls } = result();
        const whole = counter.countMessages(toChatMessages(finalMessages));
        expect(whole).toBeGreaterThan(scenario.maxContextTokens);
        expect(calls.some((call) => (call.reductions[reduction] ?? 0) > 0)).toBe(true);
        expect(calls.at(-1)!.tokens).toBeLessThan(whole);
        expect(finalMessages.length).toBeGreaterThanOrEqual(recordedMessages);
      },
    );

    test('the replay is faithful: each recorded tool call got its recorded output', () => {
      const { tools } = result();
      expect(tools.recorded).toBeGreaterThan(20);
      // the OpenHands run ends on `finish`, whose result was never recorded
      expect(tools.unrecorded.every((call) => call.startsWith('finish '))).toBe(true);
    });
  });

  test(
    'in the coding run older outputs become placeholders, and the requests that hold one bind the expand ' + 'tools',
    () => {
      const { requests } = results[1]!;
      const withPlaceholder = requests.filter((request) =>
        request.messages.some((message) => message.text.startsWith('[tool output trimmed; ref=to_')),
      );
      expect(withPlaceholder.length).toBeGreaterThan(0);
      for (const request of withPlaceholder) {
        expect(request.tools.map((bound) => (bound as { name: string }).name)).toEqual(
          expect.arrayContaining(['tool_output_cache', 'tool_output_cache_grep']),
        );
      }
      expect(requests[0]!.tools.map((bound) => (bound as { name: string }).name)).not.toContain('tool_output_cache');
    },
  );

  test(
    "the summaries are written by the application's chat model, through llmClientFromChatModel, and reach the " +
      "agent's model",
    () => {
      const { summaryModel, requests } = results[2] as ModelSummariesResult;
      expect(summaryModel.requests.length).toBeGreaterThan(0);
      for (const request of summaryModel.requests) {
        expect(request[0]).toBeInstanceOf(SystemMessage);
        expect(request.map((message) => message.text).join('\n')).toContain('<transcript first_message=');
      }
      const sent = requests.map((request) => request.messages.map((message) => message.text).join('\n'));
      expect(summaryModel.summaries.some((summary) => sent.some((text) => text.includes(summary)))).toBe(true);
      expect(summaryModel.summaries.at(-1)).toMatch(/Reservations: [A-Z0-9]{6}/);
    },
  );

  test('the scenarios are the ones the README describes', () => {
    expect(AIRLINE_SCENARIO).toMatchObject({ pluginId: 'std-summarization-strategy', maxContextTokens: 4000 });
    expect(CODING_SCENARIO).toMatchObject({ pluginId: 'std-tool-output-cache-strategy', maxContextTokens: 16000 });
    expect(lines[0]).toMatch(/^tau-bench airline, .* ceiling 4000 tokens$/);
    expect(lines.filter((line) => /model calls, peak \d+ of \d+ tokens/.test(line))).toHaveLength(3);
  });
});
