import { type Counter, createNoopMeter, type Histogram, type MeterProvider, metrics } from '@opentelemetry/api';

import { CTXKIT_INSTRUMENTATION_SCOPE, CtxkitMetricNames, CtxkitMetricUnits } from './telemetry-names';

/** ctxkit's metric instruments, from the meter of the global meter provider. */
export interface CtxkitInstruments {
  tokensSent: Counter;
  tokensSaved: Counter;
  tokensCachedPrefix: Counter;
  cacheShare: Histogram;
  reductions: Counter;
  composeDuration: Histogram;
  helperDuration: Histogram;
}

/** Bucket boundaries for durations in seconds: a compose takes milliseconds, a helper model seconds. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SHARE_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1];

let cachedFor: MeterProvider | undefined;
let cached: CtxkitInstruments | undefined;

/**
 * The instruments of the meter provider registered now, or undefined while none is (the API's no-op
 * meter: nothing to record, so callers skip the work). The API's global meter provider is not a proxy
 * (a meter taken before the host registers its SDK stays a no-op), so the instruments are made again
 * when the registered provider changes.
 */
export function ctxkitInstruments(): CtxkitInstruments | undefined {
  const provider = metrics.getMeterProvider();
  if (cachedFor === provider) return cached;
  cachedFor = provider;
  const meter = provider.getMeter(CTXKIT_INSTRUMENTATION_SCOPE);
  if (meter === createNoopMeter()) {
    cached = undefined;
    return undefined;
  }
  const counter = (name: keyof typeof CtxkitMetricNames, description: string) =>
    meter.createCounter(CtxkitMetricNames[name], { unit: CtxkitMetricUnits[name], description });
  const histogram = (name: keyof typeof CtxkitMetricNames, description: string, buckets: number[]) =>
    meter.createHistogram(CtxkitMetricNames[name], {
      unit: CtxkitMetricUnits[name],
      description,
      advice: { explicitBucketBoundaries: buckets },
    });
  cached = {
    tokensSent: counter('tokensSent', 'Tokens of the payloads ctxkit composed (messages and tool definitions).'),
    tokensSaved: counter('tokensSaved', 'Tokens the context strategy kept out of the payloads (input minus output).'),
    tokensCachedPrefix: counter(
      'tokensCachedPrefix',
      "Tokens of the payloads that repeat the start of the conversation's previous payload.",
    ),
    cacheShare: histogram(
      'cacheShare',
      "Per payload, the share of its tokens that repeat the start of the conversation's previous payload.",
      SHARE_BUCKETS,
    ),
    reductions: counter(
      'reductions',
      'Reductions (drops, trims, folds, compactions, extractions, recalls) in the composed payloads.',
    ),
    composeDuration: histogram('composeDuration', 'Duration of one composePayload.', DURATION_BUCKETS),
    helperDuration: histogram(
      'helperDuration',
      'Duration of one helper-model call (summary, extraction, compaction).',
      DURATION_BUCKETS,
    ),
  };
  return cached;
}
