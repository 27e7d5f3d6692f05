/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
// The AI SDK ships ES modules only: the test environment loads it with Node's own require.
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import { toChatMessages } from '@ctxkit/ai-sdk';
import { createTokenCounter, type ToolDefinition } from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';

import { runOpenHands, runTauBench, runTauBenchWithModelSummaries, type ScenarioResult } from './main';
import type { ModelRequest } from './recorded-replay-model';

/** An independent count: js-tiktoken (o200k), not the strategy's gpt-tokenizer. */
const counter = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' });

function requestTokens(request: ModelRequest): number {
  const tools: ToolDefinition[] = (request.tools ?? []).flatMap((tool) =>
    tool.type === 'function'
      ? [
          {
            type: 'function' as const,
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.inputSchema as Record<string, unknown>,
            },
          },
        ]
      : [],
  );
  return counter.countMessages(toChatMessages(request.prompt)) + counter.countTools(tools);
}

/**
 * Checks every request the model received: the budget, provider validity, the system prompt, the newest user message.
 */
function checkEveryRequest(result: ScenarioResult, systemPrompt: string): void {
  const { requests, newestUser } = result.report;
  expect(requests.length).toBeGreaterThan(0);
  requests.forEach((request, index) => {
    const sent = toChatMessages(request.prompt);
    expect({ request: index + 1, tokens: requestTokens(request) <= result.ceiling }).toEqual({
      request: index + 1,
      tokens: true,
    });
    expect(findPayloadProblems(sent)).toEqual([]);
    expect(request.prompt[0]).toEqual({ role: 'system', content: systemPrompt });
    const users = sent.filter((message) => message.role === 'user');
    expect(contentText(users[users.length - 1]!.content)).toBe(newestUser[index]);
  });
}

/** The text a `tool_output_cache` read returned, without its header and line numbers. */
function unnumbered(pages: string[], byteSize: number): string {
  const rows = pages
    .join('\n')
    .split('\n')
    .filter((row) => /^ *\d+\t/.test(row));
  const text = rows.map((row) => row.replace(/^ *\d+\t/, '')).join('\n');
  return Buffer.byteLength(text) + 1 === byteSize ? `${text}\n` : text;
}

describe('ai-sdk-agent', () => {
  describe('through ctxkitMiddleware', () => {
    it(
      'replays a tau-bench conversation on summarization at 4,000 tokens: every request within the ceiling and ' +
        'valid',
      async () => {
        const lines: string[] = [];
        const result = await runTauBench({ log: (line) => lines.push(line) });
        const record = loadConversations('tau-bench-airline').find((candidate) => candidate.id === result.recordId)!;
        checkEveryRequest(result, record.systemPrompt);
        // The history does not fit: older turns were summarized, the application still holds every message.
        expect(result.report.stats.some((stats) => stats.summarized > 0)).toBe(true);
        expect(result.report.messages.filter((message) => message.role === 'user')).toHaveLength(result.report.turns);
        expect(result.report.requests.length).toBeGreaterThanOrEqual(
          record.history.filter((message) => message.role === 'assistant').length,
        );
        expect(lines[0]).toMatch(
          new RegExp(
            `${result.recordId} through generateText with ctxkitMiddleware, std-summarization-strategy at 4000 tokens`,
          ),
        );
      },
    );

    it("writes the summaries with the application's own AI SDK model, through llmClientFromLanguageModel", async () => {
      const result = await runTauBenchWithModelSummaries({ log: () => undefined });
      const record = loadConversations('tau-bench-airline').find((candidate) => candidate.id === result.recordId)!;
      checkEveryRequest(result, record.systemPrompt);
      expect(result.summaryRequests.length).toBeGreaterThan(0);
      for (const request of result.summaryRequests) {
        expect(request.prompt[0]!.role).toBe('system');
        expect(JSON.stringify(request.prompt)).toContain('<transcript first_message=');
        expect(request).toMatchObject({ temperature: 0 });
        expect(request.maxOutputTokens).toBeGreaterThanOrEqual(256);
      }
      // The model's summaries are what the agent's model got: the newest one in a later request.
      const sent = result.report.requests.map((request) =>
        toChatMessages(request.prompt)
          .map((message) => contentText(message.content ?? null))
          .join('\n'),
      );
      expect(result.summaries.some((summary) => sent.some((text) => text.includes(summary)))).toBe(true);
      // Written from the transcript it was given: the reservation codes of the conversation.
      const codes = new Set(
        record.history.flatMap((message) => contentText(message.content ?? null).match(/\b[A-Z0-9]{6}\b/g) ?? []),
      );
      const named = result.summaries
        .flatMap((summary) => /Reservations: ([^.]*)\./.exec(summary)?.[1]?.split(', ') ?? [])
        .filter((code) => code !== 'none');
      expect(named.length).toBeGreaterThan(0);
      for (const code of named) expect(codes.has(code)).toBe(true);
    });

    it(
      'replays an OpenHands run on the tool output cache at 16,000 tokens, and reads a trimmed output back through ' +
        'the AI SDK',
      async () => {
        const result = await runOpenHands({ log: () => undefined });
        const record = loadConversations('openhands-multi-swe-bench').find(
          (candidate) => candidate.id === result.recordId,
        )!;
        checkEveryRequest(result, record.systemPrompt);
        const sent = result.report.requests.map((request) =>
          toChatMessages(request.prompt)
            .map((message) => contentText(message.content ?? null))
            .join('\n'),
        );
        expect(sent.some((text) => /\[tool output trimmed; ref=to_[0-9a-f]{32}\]/.test(text))).toBe(true);
        // The expand tools are offered only once an output is trimmed.
        const offered = result.report.requests.map((request) =>
          (request.tools ?? []).some((tool) => tool.name === 'tool_output_cache'),
        );
        expect(offered[0]).toBe(false);
        expect(offered.some(Boolean)).toBe(true);
        // The model read a trimmed output back with tool_output_cache, executed by the strategy: byte for byte the
        // recorded output.
        const outputs = record.history
          .filter((message) => message.role === 'tool')
          .map((message) => contentText(message.content));
        expect(result.report.expansions).toHaveLength(1);
        const [expansion] = result.report.expansions;
        const header = /\[tool_output_cache ref=(to_[0-9a-f]{32}): lines \d+-\d+ of \d+, (\d+) bytes\]/.exec(
          expansion!.pages[0]!,
        );
        expect(header?.[1]).toBe(expansion!.refId);
        expect(outputs).toContain(unnumbered(expansion!.pages, Number(header![2])));
      },
    );
  });
});
