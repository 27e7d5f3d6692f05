import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

import type { ILLMClient } from '../contracts/llm-client';
import type { LLMPayload, PayloadStats } from '../contracts/llm-payload';
import { createTokenUsage } from '../contracts/token-usage';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import { CtxkitEventBus } from '../events/event-bus';
import { traceCompose } from './compose-telemetry';
import type { LifecycleEventName } from './span-events';
import { CtxkitMetricNames } from './telemetry-names';
import { tracedHelperClient } from './traced-helper-client';

class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const owner = (events?: CtxkitEventBus) => ({
  agentId: 'support',
  sessionId: 's1',
  pluginId: 'std-sliding-window-strategy',
  ...(events ? { events } : {}),
});
const base = { agentId: 'support', sessionId: 's1', strategyId: 'std-sliding-window-strategy', turn: 3 };

function payload(overrides: Partial<PayloadStats> = {}): LLMPayload {
  const stats: PayloadStats = {
    strategyId: 'std-sliding-window-strategy',
    model: 'gpt-4o',
    input_tokens: 900,
    output_tokens: 400,
    compress_ratio: 400 / 900,
    budget: {
      contextWindow: 128000,
      maxContextTokens: 1000,
      reserveOutputTokens: 0,
      safetyMarginTokens: 100,
      available: 900,
      used: 400,
      remaining: 500,
    },
    sections: { system: 50, tools: 30, dynamic: 0, memory: 0, history: 320 },
    messages: { input: 12, output: 5 },
    reductions: [
      {
        action: 'dropped',
        from: 0,
        to: 6,
        messages: 6,
        tokensBefore: 480,
        tokensAfter: 0,
        reason: 'older than the window',
        recoverableFrom: 'history',
      },
      {
        action: 'trimmed',
        from: 8,
        to: 9,
        messages: 1,
        reason: 'old tool output',
        recoverableFrom: 'tool-output-cache',
        refs: ['ref-1'],
      },
    ],
    dropped: 6,
    trimmed: 1,
    summarized: 0,
    compacted: 0,
    usageLevel: 'ok',
    counter: {
      model: 'gpt-4o',
      encoding: 'o200k_base',
      uses_tiktoken: true,
      strategy: 'tiktoken',
      backend: 'gpt-tokenizer',
    },
    repeatedPrefixTokens: 300,
    ...overrides,
  };
  return { messages: [], tools: [], stats };
}

describe('compose telemetry', () => {
  describe('without an OpenTelemetry SDK', () => {
    it('composes as before, and does not listen to the agent bus', async () => {
      const events = new CtxkitEventBus();
      const composed = payload();
      expect(await traceCompose(owner(events), async () => composed)).toBe(composed);
      expect(events.listenerCount('summary-end')).toBe(0);
    });
  });

  describe('with an OpenTelemetry SDK', () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    beforeAll(() => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(tracerProvider);
      metrics.setGlobalMeterProvider(meterProvider);
    });
    afterEach(() => exporter.reset());
    afterAll(async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
    });

    async function metricSum(name: string): Promise<{ sum: number; count: number }> {
      const { resourceMetrics } = await reader.collect();
      let sum = 0;
      let count = 0;
      for (const metric of resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .filter((candidate) => candidate.descriptor.name === name)) {
        for (const point of metric.dataPoints) {
          if (metric.dataPointType === DataPointType.HISTOGRAM) {
            sum += (point.value as { sum: number }).sum;
            count += (point.value as { count: number }).count;
          } else {
            sum += point.value as number;
            count++;
          }
        }
      }
      return { sum, count };
    }

    it(
      'makes one ctxkit.compose span under the active span, with the stats as attributes and one event per ' +
        'reduction',
      async () => {
        const host = trace.getTracer('host');
        await host.startActiveSpan('host.call', async (parent) => {
          await traceCompose(owner(), async () => payload());
          parent.end();
        });
        const [compose, parent] = exporter.getFinishedSpans();
        expect(compose!.name).toBe('ctxkit.compose');
        expect(compose!.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
        expect(compose!.attributes).toMatchObject({
          'gen_ai.agent.id': 'support',
          'gen_ai.conversation.id': 's1',
          'gen_ai.request.model': 'gpt-4o',
          'ctxkit.strategy.id': 'std-sliding-window-strategy',
          'ctxkit.budget.available': 900,
          'ctxkit.tokens.sent': 400,
          'ctxkit.tokens.saved': 500,
          'ctxkit.tokens.cached_prefix': 300,
          'ctxkit.section.history.tokens': 320,
          'ctxkit.reductions.dropped': 1,
          'ctxkit.reductions.trimmed': 1,
          'ctxkit.reductions.total': 2,
        });
        expect(
          compose!.events.map((event) => [
            event.name,
            event.attributes?.['ctxkit.reduction.action'],
            event.attributes?.['ctxkit.reduction.refs'],
          ]),
        ).toEqual([
          ['ctxkit.reduction', 'dropped', undefined],
          ['ctxkit.reduction', 'trimmed', ['ref-1']],
        ]);
      },
    );

    it(
      'makes a composition no model receives a ctxkit.read_window span with the same attributes, and records no ' +
        'metric for it',
      async () => {
        const before = await metricSum(CtxkitMetricNames.tokensSent);
        await traceCompose(owner(), async () => payload(), false);
        const [read] = exporter.getFinishedSpans();
        expect(read!.name).toBe('ctxkit.read_window');
        expect(read!.attributes).toMatchObject({ 'ctxkit.tokens.sent': 400, 'ctxkit.reductions.total': 2 });
        expect(await metricSum(CtxkitMetricNames.tokensSent)).toEqual(before);
        await traceCompose(owner(), async () => payload());
        expect((await metricSum(CtxkitMetricNames.tokensSent)).sum).toBe(before.sum + 400);
      },
    );

    it('records a failed compose as an error span and rethrows', async () => {
      const error = new BudgetExceededError('std-sliding-window-strategy', {
        required: 2000,
        available: 900,
        sections: { system: 2000, tools: 0 },
      } as never);
      await expect(
        traceCompose(owner(), async () => {
          throw error;
        }),
      ).rejects.toBe(error);
      const [span] = exporter.getFinishedSpans();
      expect(span!.status.code).toBe(SpanStatusCode.ERROR);
      expect(span!.attributes['error.type']).toBe('CTXKIT_BUDGET_EXCEEDED');
      expect(span!.events.map((event) => event.name)).toEqual(['exception']);
    });

    it(
      'puts lifecycle events on the open compose span, and on a span of their own from their start event outside ' +
        'one',
      async () => {
        const events = new CtxkitEventBus();
        await traceCompose(owner(events), async () => {
          events.emit('usage-level-change', { ...base, from: 'ok', to: 'warn', used: 700, contextWindow: 1000 });
          return payload({ reductions: [] });
        });
        events.emit('summary-start', { ...base, turns: 2, messages: 4, model: 'gpt-4o-mini', offline: false });
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.emit('summary-end', {
          ...base,
          turns: 2,
          messages: 4,
          model: 'gpt-4o-mini',
          offline: false,
          summaryTokens: 40,
          replacedTokens: 95,
          version: 1,
        });
        const [compose, fold] = exporter.getFinishedSpans();
        expect(compose!.events.map((event) => [event.name, event.attributes?.['ctxkit.usage_level.to']])).toEqual([
          ['ctxkit.usage_level.change', 'warn'],
        ]);
        expect(fold!.name).toBe('ctxkit.fold');
        expect(fold!.events.map((event) => [event.name, event.attributes?.['ctxkit.fold.version']])).toEqual([
          ['ctxkit.fold', 1],
        ]);
        const millis = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
        expect(millis(fold!.endTime) - millis(fold!.startTime)).toBeGreaterThanOrEqual(4);
      },
    );

    const epoch = {
      id: 'e2',
      kind: 'fold' as const,
      at: 0,
      turn: 3,
      description: 'folded messages 0–11 into the summary',
    };
    const lifecycle: Array<[LifecycleEventName, Record<string, unknown>, string, string, Record<string, unknown>]> = [
      [
        'summary-end',
        { turns: 2, messages: 4, model: 'm', offline: false, summaryTokens: 40, replacedTokens: 95, version: 2 },
        'ctxkit.fold',
        'ctxkit.fold',
        { 'ctxkit.fold.version': 2 },
      ],
      [
        'summary-error',
        { error: { code: 'CTXKIT_LLM_TIMEOUT', message: 'slow' }, consecutiveFailures: 2, retryAt: null },
        'ctxkit.fold',
        'ctxkit.fold.error',
        { 'error.type': 'CTXKIT_LLM_TIMEOUT' },
      ],
      [
        'entities-updated',
        {
          version: 4,
          sourceMessageIndex: 9,
          diff: [{ field: 'destination', before: null, after: 'LAX' }],
          offline: false,
        },
        'ctxkit.extraction',
        'ctxkit.extraction',
        { 'ctxkit.extraction.fields': ['destination'] },
      ],
      [
        'entities-error',
        { reason: 'invalid', errors: ['/date'], attempts: 2 },
        'ctxkit.extraction',
        'ctxkit.extraction.error',
        { 'ctxkit.extraction.attempts': 2 },
      ],
      [
        'compaction-end',
        { trigger: 'auto', tokensBefore: 9000, tokensAfter: 2000, transcriptRef: 't-1', messages: [] },
        'ctxkit.compaction',
        'ctxkit.compaction',
        { 'ctxkit.compaction.tokens_after': 2000, 'ctxkit.compaction.transcript_ref': 't-1' },
      ],
      [
        'compaction-error',
        { trigger: 'manual', error: { code: 'CTXKIT_COMPACTION_NO_PROGRESS', message: 'nothing' } },
        'ctxkit.compaction',
        'ctxkit.compaction.error',
        { 'error.type': 'CTXKIT_COMPACTION_NO_PROGRESS' },
      ],
      [
        'epoch-undone',
        { epoch, alsoUndone: [{ ...epoch, id: 'e3' }], historyRestored: true },
        'ctxkit.undo',
        'ctxkit.undo',
        { 'ctxkit.undo.epoch_id': 'e2', 'ctxkit.undo.also_undone': ['e3'] },
      ],
      [
        'history-recall',
        {
          hits: [{ sessionId: 's0', from: 4, to: 8, at: 0, relevance: 0.7 }],
          tokens: 120,
          candidates: 5,
          embedding: 'none',
        },
        'ctxkit.recall',
        'ctxkit.recall',
        { 'ctxkit.recall.hits': 1, 'ctxkit.recall.ranges': ['s0[4,8)'] },
      ],
      [
        'usage-level-change',
        { from: 'warn', to: 'compact', used: 820, contextWindow: 1000 },
        'ctxkit.usage_level',
        'ctxkit.usage_level.change',
        { 'ctxkit.usage_level.to': 'compact' },
      ],
    ];

    it.each(lifecycle)(
      'reports %s outside a compose as a span of its own with one event',
      async (name, fields, spanName, eventName, attributes) => {
        const events = new CtxkitEventBus();
        await traceCompose(owner(events), async () => payload({ reductions: [] }));
        exporter.reset();
        (events.emit as (event: string, payload: unknown) => boolean)(name, { ...base, ...fields });
        const [span] = exporter.getFinishedSpans();
        expect(span!.name).toBe(spanName);
        expect(span!.attributes).toMatchObject({ 'gen_ai.agent.id': 'support', 'gen_ai.conversation.id': 's1' });
        expect(span!.events).toHaveLength(1);
        expect(span!.events[0]!.name).toBe(eventName);
        expect(span!.events[0]!.attributes).toMatchObject(attributes);
      },
    );

    it('adds up the metrics of every compose', async () => {
      const before = await metricSum(CtxkitMetricNames.tokensSent);
      const saved = await metricSum(CtxkitMetricNames.tokensSaved);
      const shared = await metricSum(CtxkitMetricNames.cacheShare);
      await traceCompose(owner(), async () => payload());
      await traceCompose(owner(), async () => payload({ output_tokens: 600, repeatedPrefixTokens: 450 }));
      expect((await metricSum(CtxkitMetricNames.tokensSent)).sum - before.sum).toBe(1000);
      expect((await metricSum(CtxkitMetricNames.tokensSaved)).sum - saved.sum).toBe(500 + 300);
      const share = await metricSum(CtxkitMetricNames.cacheShare);
      expect(share.count - shared.count).toBe(2);
      expect(share.sum - shared.sum).toBeCloseTo(300 / 400 + 450 / 600, 9);
    });

    it('makes each helper-model call a GenAI chat span and a ctxkit.helper.duration measurement', async () => {
      const client: ILLMClient = {
        name: 'scripted',
        defaultModel: 'gpt-4o-mini',
        offline: false,
        complete: async () => ({
          message: { role: 'assistant', content: '<summary>ok</summary>' },
          text: '<summary>ok</summary>',
          usage: createTokenUsage({ input_tokens: 120, cache_read_tokens: 30, output_tokens: 12 }),
          model: 'gpt-4o-mini-2024',
          finishReason: 'stop',
        }),
      };
      const helper = tracedHelperClient(client, { agentId: 'support', strategyId: 'std-summarization-strategy' });
      const before = (await metricSum(CtxkitMetricNames.helperDuration)).count;
      await helper.complete({ messages: [{ role: 'user', content: 'Summarize.' }] });
      const [span] = exporter.getFinishedSpans();
      expect(span!.name).toBe('chat gpt-4o-mini');
      expect(span!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024',
        'gen_ai.usage.input_tokens': 150,
        'gen_ai.usage.output_tokens': 12,
      });
      expect((await metricSum(CtxkitMetricNames.helperDuration)).count - before).toBe(1);
    });
  });
});
