import 'reflect-metadata';

import {
  CtxkitMetricNames,
  CtxkitSpanEventNames,
  CtxkitSpanNames,
  type LLMCompletionRequest,
  type PayloadStats,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';
import { createAgent } from '@ctxkit/kernel';
import { trace } from '@opentelemetry/api';

import { CaseModel, caseTurns, recordedTools } from '../kernel-case';
import { composeSpanProblems, composeSpans, otelAndRuntime, parentSpanId, statsSums } from './in-memory-otel';

/**
 * The kernel's agent loop under an OpenTelemetry SDK the host registered: a 30-model-call tau-bench
 * replay (11 user turns) with the summarization strategy folding in the background through the
 * agent's scripted model. Each model call is one `ctxkit.compose` span under the host's span of
 * its run, with the attributes of its payload's stats and one event per reduction record; the folds
 * are spans of their own with a `ctxkit.fold` event; the metrics are the sums of the stats.
 */

const RECORD = 'tau-bench/airline/gpt-4o/task-3/trial-0';

/**
 * A summary request (no tools) gets a short summary: the words of the transcript that hold a digit
 * or an @ (the identifiers the summary check looks for), and what a second request names as missing.
 */
function summaryAnswer(request: LLMCompletionRequest): { content: string } | undefined {
  if (request.tools) return undefined;
  const texts = request.messages.map((message) => contentText(message.content ?? null));
  const words = new Set(texts.join('\n').match(/[\w.@+-]*[\d@][\w.@+-]*/g) ?? []);
  for (const quoted of texts.at(-1)!.match(/"(?:[^"\\]|\\.)*"/g) ?? []) words.add(JSON.parse(quoted) as string);
  return { content: `<summary>\nThe user and the agent discussed: ${[...words].join(', ')}.\n</summary>` };
}

describe('OpenTelemetry through the kernel', () => {
  const fixture = otelAndRuntime();

  it(
    '30 model calls of a tau-bench replay: one compose span each under the run span, attributes and events equal ' +
      'to stats, metrics equal to their sums',
    async () => {
      const { runtime, otel } = fixture;
      const record = loadConversations('tau-bench-airline').find((candidate) => candidate.id === RECORD)!;
      const handle = await runtime.loadAgent({
        id: 'otel-kernel',
        model: 'gpt-4o',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-summarization-strategy',
          config: { maxContextTokens: 4000, reserveOutputTokens: 0, threshold: 3, batchTurns: 2 },
        },
      });
      let summaries = 0;
      handle.events.on('summary-end', () => summaries++);
      const model = new CaseModel();
      model.interject = summaryAnswer;
      const agent = createAgent(handle, {
        llm: model.client,
        systemPrompt: record.systemPrompt,
        tools: recordedTools(record.history),
      });
      const tracer = trace.getTracer('host-app');
      const payloads: PayloadStats[] = [];
      const runSpanIds: string[] = [];
      for (const turn of caseTurns(record.history)) {
        model.startTurn(turn);
        await tracer.startActiveSpan('host.turn', async (span) => {
          runSpanIds.push(span.spanContext().spanId);
          const result = await agent.run(turn.userText, { waitForIdle: true });
          payloads.push(...result.payloads);
          span.end();
        });
      }
      // The recorded 30 assistant messages, and one more call where a turn's recording ends on a tool result.
      const calls = model.client.requests.filter((request) => request.tools).length;
      expect(calls).toBeGreaterThanOrEqual(30);
      expect(payloads).toHaveLength(calls);

      const spans = composeSpans(otel.exporter);
      expect(spans).toHaveLength(calls);
      const problems = spans.flatMap((span, index) =>
        composeSpanProblems(span, payloads[index]!).map((problem) => `compose ${index + 1}: ${problem}`),
      );
      expect(problems).toEqual([]);
      // Nesting: each compose under the host's span of the run that made the call.
      const parents = new Set(spans.map(parentSpanId));
      expect([...parents].every((id) => id !== undefined && runSpanIds.includes(id))).toBe(true);
      expect(parents.size).toBe(runSpanIds.length);
      expect(
        spans.every(
          (span) =>
            span.attributes['gen_ai.agent.id'] === 'otel-kernel' &&
            span.attributes['gen_ai.conversation.id'] === 'default',
        ),
      ).toBe(true);

      // The replay reduced: tool outputs trimmed to placeholders, turns folded into summaries.
      const reductions = payloads.flatMap((stats) => stats.reductions.map((reduction) => reduction.action));
      expect(reductions).toEqual(expect.arrayContaining(['trimmed', 'summarized']));
      // Each summary that folded turns is one ctxkit.fold event: on the compose that waited for it, or on a ctxkit.fold
      // span of its own.
      const foldEvents = otel.exporter
        .getFinishedSpans()
        .flatMap((span) =>
          span.events.filter((event) => event.name === CtxkitSpanEventNames.fold).map(() => span.name),
        );
      expect(summaries).toBeGreaterThan(0);
      expect(foldEvents).toHaveLength(summaries);
      expect(foldEvents.every((name) => name === CtxkitSpanNames.fold || name === CtxkitSpanNames.compose)).toBe(true);
      const helperCalls = otel.exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'chat gpt-4o' && span.attributes['gen_ai.operation.name'] === 'chat');
      expect(helperCalls.length).toBe(model.client.requests.length - calls);

      const sums = statsSums(payloads.map((stats) => ({ messages: [], tools: [], stats })));
      expect(await otel.sum(CtxkitMetricNames.tokensSent)).toBe(sums.sent);
      expect(await otel.sum(CtxkitMetricNames.tokensSaved)).toBe(sums.saved);
      expect(await otel.sum(CtxkitMetricNames.tokensCachedPrefix)).toBe(sums.cachedPrefix);
      expect(await otel.sum(CtxkitMetricNames.reductions)).toBe(sums.reductions);
      expect(await otel.count(CtxkitMetricNames.composeDuration)).toBe(calls);
      expect(await otel.count(CtxkitMetricNames.helperDuration)).toBe(helperCalls.length);
      await handle.dispose();
    },
    60_000,
  );
});
