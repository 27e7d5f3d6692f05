import 'reflect-metadata';

import { CtxkitMetricNames, type LLMPayload } from '@ctxkit/core';
import { createCtxkitMiddleware } from '@ctxkit/langchain';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { trace } from '@opentelemetry/api';
import { createAgent } from 'langchain';

import { composeSpanProblems, composeSpans, otelAndRuntime, parentSpanId, statsSums } from './in-memory-otel';
import { RecordedChatModel } from './recorded-models';
import { recordedOutputs, replayRecord } from './replay-record';

/**
 * LangChain's own agent loop (`createAgent` with ctxkit's middleware) over a 30-model-call tau-bench
 * replay, each `agent.invoke` inside the host's OpenTelemetry span: one `ctxkit.compose` span per
 * model call, under the span of the invoke that made it, with the attributes and events of its
 * payload's stats; the metrics equal the stats' sums.
 */

describe('OpenTelemetry through the LangChain adapter', () => {
  const fixture = otelAndRuntime();

  it(
    'createAgent over a tau-bench replay: one compose span per model call under the invoke span, attributes and ' +
      'events equal to stats, metrics equal to their sums',
    async () => {
      const { runtime, otel } = fixture;
      const { record, turns } = replayRecord();
      const payloads: LLMPayload[] = [];
      const ctxkit = await createCtxkitMiddleware({
        runtime,
        pluginId: 'std-sliding-window-strategy',
        agentId: 'otel-langchain',
        config: { maxContextTokens: 3000, reserveOutputTokens: 0 },
        waitForIdle: true,
        onPayload: (payload) => payloads.push(payload),
      });
      const outputs = recordedOutputs(record.history);
      const tools = [...outputs.keys()].map((name) =>
        tool(async () => outputs.get(name)!.shift() ?? 'no recorded output', {
          name,
          description: `The airline's ${name.replace(/_/g, ' ')}.`,
          schema: { type: 'object', properties: {}, additionalProperties: true },
        }),
      );
      const model = new RecordedChatModel({});
      const agent = createAgent({ model, tools, systemPrompt: record.systemPrompt, middleware: [ctxkit] });
      const tracer = trace.getTracer('host-app');
      const invokeSpans: string[] = [];
      let messages: BaseMessage[] = [];
      for (const turn of turns) {
        model.queue.replies = [...turn.replies];
        messages = await tracer.startActiveSpan('host.invoke', async (span) => {
          invokeSpans.push(span.spanContext().spanId);
          const state = await agent.invoke(
            { messages: [...messages, new HumanMessage(turn.user)] },
            { configurable: { thread_id: 'replay' }, recursionLimit: 200 },
          );
          span.end();
          return state.messages as BaseMessage[];
        });
      }
      const calls = model.calls.count;
      expect(calls).toBeGreaterThanOrEqual(30);
      expect(payloads).toHaveLength(calls);

      const spans = composeSpans(otel.exporter);
      expect(spans).toHaveLength(calls);
      expect(
        spans.flatMap((span, index) =>
          composeSpanProblems(span, payloads[index]!.stats).map((problem) => `compose ${index + 1}: ${problem}`),
        ),
      ).toEqual([]);
      const parents = spans.map(parentSpanId);
      expect(parents.every((id) => id !== undefined && invokeSpans.includes(id))).toBe(true);
      expect(new Set(parents).size).toBe(turns.length);
      expect(
        spans.every(
          (span) =>
            span.attributes['gen_ai.conversation.id'] === 'replay' &&
            span.attributes['gen_ai.agent.id'] === 'otel-langchain',
        ),
      ).toBe(true);
      expect(
        payloads.some((payload) => payload.stats.reductions.some((reduction) => reduction.action === 'dropped')),
      ).toBe(true);

      const sums = statsSums(payloads);
      expect(await otel.sum(CtxkitMetricNames.tokensSent)).toBe(sums.sent);
      expect(await otel.sum(CtxkitMetricNames.tokensSaved)).toBe(sums.saved);
      expect(await otel.sum(CtxkitMetricNames.tokensCachedPrefix)).toBe(sums.cachedPrefix);
      expect(await otel.sum(CtxkitMetricNames.reductions)).toBe(sums.reductions);
      await ctxkit.dispose();
    },
    60_000,
  );
});
