/** @jest-environment <rootDir>/../../packages/ai-sdk/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));
jest.mock('@ai-sdk/otel', () => nativeRequire('@ai-sdk/otel'));

import 'reflect-metadata';

import { OpenTelemetry } from '@ai-sdk/otel';
import { createAiSdkContext } from '@ctxkit/ai-sdk';
import { CtxkitMetricNames, type PayloadStats } from '@ctxkit/core';
import { trace } from '@opentelemetry/api';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, type ToolSet, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import { composeSpanProblems, composeSpans, otelAndRuntime, parentSpanId, statsSums } from './in-memory-otel';
import { aiSdkGenerated } from './recorded-models';
import { recordedOutputs, type RecordedReply, replayRecord } from './replay-record';

/** Node's own require, given by the test environment: the AI SDK ships ES modules only (loaded by Node ≥ 20.19). */
declare const nativeRequire: NodeJS.Require;

/**
 * The AI SDK's own tool loop (`generateText` with its OpenTelemetry integration, `@ai-sdk/otel`)
 * over a 30-model-call tau-bench replay, ctxkit composing every step through its middleware: each
 * model call's inference span (`chat <model>`) holds exactly one `ctxkit.compose` span, whose
 * attributes and events equal its payload's stats; the metrics equal the stats' sums.
 */

describe('OpenTelemetry through the AI SDK adapter', () => {
  // The AI SDK and its OpenTelemetry integration load through Node's own require: their copy of the API sees Node's
  // global object.
  const fixture = otelAndRuntime([nativeRequire('@opentelemetry/api') as typeof import('@opentelemetry/api')]);

  it(
    'generateText over a tau-bench replay: one compose span in each inference span, attributes and events equal to ' +
      'stats, metrics equal to their sums',
    async () => {
      const { runtime, otel } = fixture;
      const { record, turns } = replayRecord();
      const context = await createAiSdkContext({
        runtime,
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 4000, reserveOutputTokens: 0 },
        agentId: 'otel-ai-sdk',
        sessionId: 'replay',
        waitForIdle: true,
      });
      const payloads: PayloadStats[] = [];
      context.agent.events.on('payload-composed', (event) => {
        if (event.sessionId === 'replay') payloads.push(event.stats);
      });
      const outputs = recordedOutputs(record.history);
      const tools: ToolSet = Object.fromEntries(
        [...outputs.keys()].map((name) => [
          name,
          tool({
            description: `The airline's ${name.replace(/_/g, ' ')}.`,
            inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
            execute: async () => outputs.get(name)!.shift() ?? 'no recorded output',
          }),
        ]),
      );
      let queue: RecordedReply[] = [];
      const model = new MockLanguageModelV4({
        doGenerate: async () => aiSdkGenerated(queue.shift() ?? { text: 'Anything else?', calls: [] }),
      });
      const tracer = trace.getTracer('host-app');
      const messages: ModelMessage[] = [];
      for (const turn of turns) {
        queue = [...turn.replies];
        messages.push({ role: 'user', content: turn.user });
        const result = await generateText({
          model: wrapLanguageModel({ model, middleware: context.middleware }),
          system: record.systemPrompt,
          messages,
          tools: context.tools(tools),
          stopWhen: stepCountIs(50),
          telemetry: { functionId: 'airline-turn', integrations: [new OpenTelemetry({ tracer })] },
        });
        messages.push(...result.responseMessages);
      }
      const calls = model.doGenerateCalls.length;
      expect(calls).toBeGreaterThanOrEqual(30);
      expect(payloads).toHaveLength(calls);

      const spans = composeSpans(otel.exporter);
      expect(spans).toHaveLength(calls);
      expect(
        spans.flatMap((span, index) =>
          composeSpanProblems(span, payloads[index]!).map((problem) => `compose ${index + 1}: ${problem}`),
        ),
      ).toEqual([]);
      // The AI SDK's OpenTelemetry integration: one GenAI inference span (`chat <model>`) per model call, under its
      // step span.
      const inference = otel.exporter
        .getFinishedSpans()
        .filter(
          (span) =>
            span.attributes['gen_ai.operation.name'] === 'chat' && span.instrumentationScope.name !== '@ctxkit/core',
        );
      expect(inference).toHaveLength(calls);
      const inferenceIds = new Set(inference.map((span) => span.spanContext().spanId));
      const parents = spans.map(parentSpanId);
      expect(parents.every((id) => id !== undefined && inferenceIds.has(id))).toBe(true);
      expect(new Set(parents).size).toBe(calls);
      expect(payloads.some((stats) => stats.reductions.length > 0)).toBe(true);

      const sums = statsSums(payloads.map((stats) => ({ messages: [], tools: [], stats })));
      expect(await otel.sum(CtxkitMetricNames.tokensSent)).toBe(sums.sent);
      expect(await otel.sum(CtxkitMetricNames.tokensSaved)).toBe(sums.saved);
      expect(await otel.sum(CtxkitMetricNames.tokensCachedPrefix)).toBe(sums.cachedPrefix);
      expect(await otel.sum(CtxkitMetricNames.reductions)).toBe(sums.reductions);
      await context.dispose();
    },
    60_000,
  );
});
