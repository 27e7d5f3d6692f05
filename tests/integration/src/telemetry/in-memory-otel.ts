import {
  type ContextRuntime,
  createContextRuntime,
  CtxkitAttributes,
  CtxkitSpanEventNames,
  CtxkitSpanNames,
  type LLMPayload,
  type PayloadStats,
} from '@ctxkit/core';
import * as otelApi from '@opentelemetry/api';
import { type Attributes, type AttributeValue, context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A metric reader the test collects from when it wants. */
class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/** The OpenTelemetry SDK a host would register, with an in-memory span exporter and metric reader. */
export interface InMemoryOtel {
  exporter: InMemorySpanExporter;
  tracerProvider: TracerProvider;
  /** A sum of a counter's data points, or of a histogram's recorded values, over all attributes. */
  sum(metric: string): Promise<number>;
  /** How many values a histogram recorded. */
  count(metric: string): Promise<number>;
  shutdown(): Promise<void>;
}

/**
 * Registers the SDK globally (tracer provider, meter provider, AsyncLocalStorage context manager).
 * `alsoOn`: other copies of the API to register the same tracer provider and context manager on (a
 * framework loaded outside jest's module registry sees another global object than the test does).
 * `processors`: span processors of the test's own, after the exporter's.
 */
export function registerInMemoryOtel(
  alsoOn: ReadonlyArray<typeof otelApi> = [],
  processors: ReadonlyArray<SpanProcessor> = [],
): InMemoryOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter }), ...processors] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  for (const api of alsoOn) {
    api.context.setGlobalContextManager(contextManager);
    api.trace.setGlobalTracerProvider(tracerProvider);
  }
  const points = async (name: string) => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === name);
  };
  return {
    exporter,
    tracerProvider,
    async sum(name) {
      let total = 0;
      for (const metric of await points(name)) {
        for (const point of metric.dataPoints)
          total +=
            metric.dataPointType === DataPointType.HISTOGRAM
              ? ((point.value as { sum?: number }).sum ?? 0)
              : (point.value as number);
      }
      return total;
    },
    async count(name) {
      let total = 0;
      for (const metric of await points(name))
        for (const point of metric.dataPoints)
          total += metric.dataPointType === DataPointType.HISTOGRAM ? (point.value as { count: number }).count : 1;
      return total;
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      for (const api of [otelApi, ...alsoOn]) {
        api.trace.disable();
        api.context.disable();
      }
      metrics.disable();
    },
  };
}

/** The compose spans exported so far, in the order they ended. */
export function composeSpans(exporter: InMemorySpanExporter): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === CtxkitSpanNames.compose);
}

/** The span id of a span's parent, or undefined for a root span. */
export function parentSpanId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/**
 * What is wrong with one compose span, checked against the stats of the payload it composed: the
 * attributes the docs list, equal to the stats, and one `ctxkit.reduction` event per reduction
 * record, in order, with its action and range.
 */
export function composeSpanProblems(span: ReadableSpan, stats: PayloadStats): string[] {
  const problems: string[] = [];
  const expect = (key: string, value: AttributeValue | undefined) => {
    const actual = span.attributes[key];
    if (JSON.stringify(actual) !== JSON.stringify(value))
      problems.push(`${key} is ${JSON.stringify(actual)}, stats say ${JSON.stringify(value)}`);
  };
  expect('gen_ai.request.model', stats.model);
  expect(CtxkitAttributes.strategyId, stats.strategyId);
  expect(CtxkitAttributes.budgetContextWindow, stats.budget.contextWindow);
  expect(CtxkitAttributes.budgetMaxContextTokens, stats.budget.maxContextTokens);
  expect(CtxkitAttributes.budgetAvailable, stats.budget.available);
  expect(CtxkitAttributes.budgetUsed, stats.budget.used);
  expect(CtxkitAttributes.tokensInput, stats.input_tokens);
  expect(CtxkitAttributes.tokensSent, stats.output_tokens);
  expect(CtxkitAttributes.tokensSaved, Math.max(0, stats.input_tokens - stats.output_tokens));
  expect(CtxkitAttributes.usageLevel, stats.usageLevel);
  expect(CtxkitAttributes.cachedPrefixTokens, stats.repeatedPrefixTokens);
  for (const section of ['system', 'tools', 'dynamic', 'memory', 'history'] as const)
    expect(`ctxkit.section.${section}.tokens`, stats.sections[section]);
  expect(CtxkitAttributes.reductionsTotal, stats.reductions.length);
  const byAction: Attributes = {};
  for (const record of stats.reductions)
    byAction[record.action] = ((byAction[record.action] as number | undefined) ?? 0) + 1;
  for (const action of [
    'dropped',
    'trimmed',
    'truncated',
    'summarized',
    'compacted',
    'micro-compacted',
    'extracted',
    'recalled',
  ])
    expect(`ctxkit.reductions.${action}`, byAction[action]);
  const pins = stats.extra?.pins as { count: number } | undefined;
  expect(CtxkitAttributes.pinsCount, pins?.count);
  const recall = stats.extra?.recall as { hits: unknown[] } | undefined;
  expect(CtxkitAttributes.recallHits, recall?.hits.length);
  const events = span.events.filter((event) => event.name === CtxkitSpanEventNames.reduction);
  const got = events.map(
    (event) =>
      `${event.attributes?.[CtxkitAttributes.reductionAction]}[` +
      `${event.attributes?.[CtxkitAttributes.reductionFrom]},${event.attributes?.[CtxkitAttributes.reductionTo]})`,
  );
  const want = stats.reductions.map((record) => `${record.action}[${record.from},${record.to})`);
  if (JSON.stringify(got) !== JSON.stringify(want))
    problems.push(`reduction events ${JSON.stringify(got)}, stats.reductions ${JSON.stringify(want)}`);
  return problems;
}

/** The sums over a replay's payloads that the metrics must equal. */
export function statsSums(payloads: readonly LLMPayload[]): {
  sent: number;
  saved: number;
  cachedPrefix: number;
  reductions: number;
} {
  let sent = 0;
  let saved = 0;
  let cachedPrefix = 0;
  let reductions = 0;
  for (const { stats } of payloads) {
    sent += stats.output_tokens;
    saved += Math.max(0, stats.input_tokens - stats.output_tokens);
    cachedPrefix += stats.repeatedPrefixTokens ?? 0;
    reductions += stats.reductions.length;
  }
  return { sent, saved, cachedPrefix, reductions };
}

/**
 * For a describe block: the in-memory SDK registered (see {@link registerInMemoryOtel} for `alsoOn`)
 * and a runtime, both created before its tests and shut down after them.
 */
export function otelAndRuntime(alsoOn: ReadonlyArray<typeof otelApi> = []): {
  readonly otel: InMemoryOtel;
  readonly runtime: ContextRuntime;
} {
  const fixture = {} as { otel: InMemoryOtel; runtime: ContextRuntime };
  beforeAll(async () => {
    fixture.otel = registerInMemoryOtel(alsoOn);
    fixture.runtime = await createContextRuntime();
  });
  afterAll(async () => {
    await fixture.runtime.dispose();
    await fixture.otel.shutdown();
  });
  return fixture;
}
