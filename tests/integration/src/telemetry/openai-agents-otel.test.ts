import 'reflect-metadata';

import { CtxkitMetricNames, CtxkitSpanNames, type LLMPayload } from '@ctxkit/core';
import { CtxkitSession } from '@ctxkit/openai-agents';
import { Agent, type FunctionTool, run, setTracingDisabled, tool } from '@openai/agents';
import { trace } from '@opentelemetry/api';

import { composeSpanProblems, composeSpans, otelAndRuntime, parentSpanId, statsSums } from './in-memory-otel';
import { RecordedAgentsModel } from './recorded-models';
import { recordedOutputs, replayRecord } from './replay-record';

/**
 * The OpenAI Agents SDK's own loop (`run()` with a ctxkit session and the model it wraps) over a
 * 30-model-call tau-bench replay, each `run()` inside the host's OpenTelemetry span: one
 * `ctxkit.compose` span per model call (the wrapped model's) and none else (`getItems` returns the
 * stored items, composing nothing), each under the span of the run that made it, with the attributes
 * and events of its payload's stats; the metrics equal the stats' sums. The Agents SDK's own tracing is not
 * OpenTelemetry (its traces go to its processors) and is off here.
 */

setTracingDisabled(true);

describe('OpenTelemetry through the OpenAI Agents adapter', () => {
  const fixture = otelAndRuntime();

  it(
    'run() over a tau-bench replay: one compose span per model call under the run span, attributes and events ' +
      'equal to stats, metrics equal to their sums',
    async () => {
      const { runtime, otel } = fixture;
      const { record, turns } = replayRecord();
      const payloads: LLMPayload[] = [];
      const session = new CtxkitSession({
        runtime,
        pluginId: 'std-tool-output-cache-strategy',
        agentId: 'otel-agents',
        config: { maxContextTokens: 4000, reserveOutputTokens: 0 },
        sessionId: 'replay',
        waitForIdle: true,
        onPayload: (payload) => payloads.push(payload),
      });
      const outputs = recordedOutputs(record.history);
      const tools = [...outputs.keys()].map(
        (name) =>
          tool({
            name,
            description: `The airline's ${name.replace(/_/g, ' ')}.`,
            parameters: { type: 'object', properties: {}, additionalProperties: true } as never,
            strict: false,
            execute: async () => outputs.get(name)!.shift() ?? 'no recorded output',
          }) as unknown as FunctionTool,
      );
      const model = new RecordedAgentsModel();
      const agent = new Agent({
        name: 'airline',
        instructions: record.systemPrompt,
        model: session.wrapModel(model),
        tools: [...tools, ...(await session.tools())],
      });
      const tracer = trace.getTracer('host-app');
      const runSpans: string[] = [];
      for (const turn of turns) {
        model.replies = [...turn.replies];
        await tracer.startActiveSpan('host.run', async (span) => {
          runSpans.push(span.spanContext().spanId);
          await run(agent, turn.user, { session, maxTurns: 100 });
          span.end();
        });
      }
      // One compose span per model call (the wrapped model's); getItems composes nothing.
      const calls = model.calls;
      expect(calls).toBeGreaterThanOrEqual(30);
      expect(payloads).toHaveLength(calls);

      const spans = composeSpans(otel.exporter);
      expect(spans).toHaveLength(calls);
      const reads = otel.exporter.getFinishedSpans().filter((span) => span.name === CtxkitSpanNames.readWindow);
      expect(reads).toHaveLength(0);
      // In the order they started, the compositions' spans describe the payloads the session composed.
      const startNs = (span: (typeof spans)[number]) => span.startTime[0] * 1e9 + span.startTime[1];
      const compositions = [...spans, ...reads].sort((a, b) => startNs(a) - startNs(b));
      expect(
        compositions.flatMap((span, index) =>
          composeSpanProblems(span, payloads[index]!.stats).map((problem) => `composition ${index + 1}: ${problem}`),
        ),
      ).toEqual([]);
      const parents = spans.map(parentSpanId);
      expect(parents.every((id) => id !== undefined && runSpans.includes(id))).toBe(true);
      expect(new Set(parents).size).toBe(turns.length);
      expect(
        spans.every(
          (span) =>
            span.attributes['gen_ai.conversation.id'] === 'replay' &&
            span.attributes['gen_ai.agent.id'] === 'otel-agents',
        ),
      ).toBe(true);
      expect(payloads.some((payload) => payload.stats.reductions.length > 0)).toBe(true);

      // The metrics count what models were sent: the compose spans' payloads, not the reads of the window.
      const sent = payloads.filter((_, index) => compositions[index]!.name === CtxkitSpanNames.compose);
      expect(sent).toHaveLength(calls);
      const sums = statsSums(sent);
      expect(await otel.sum(CtxkitMetricNames.tokensSent)).toBe(sums.sent);
      expect(await otel.sum(CtxkitMetricNames.tokensSaved)).toBe(sums.saved);
      expect(await otel.sum(CtxkitMetricNames.tokensCachedPrefix)).toBe(sums.cachedPrefix);
      expect(await otel.sum(CtxkitMetricNames.reductions)).toBe(sums.reductions);
      await session.dispose();
    },
    60_000,
  );
});
