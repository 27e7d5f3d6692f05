import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import type { LLMPayload, PayloadSection, PayloadStats } from '../contracts/llm-payload';
import type { CtxkitEventBus } from '../events/event-bus';
import type { PinStats } from '../pins/session-pins';
import type { RecallStats } from '../recall/recall-layer';
import { ctxkitInstruments } from './ctxkit-instruments';
import { SessionSpanBridge } from './session-span-bridge';
import { reductionEventAttributes } from './span-events';
import {
  CTXKIT_INSTRUMENTATION_SCOPE,
  CtxkitAttributes,
  CtxkitSpanEventNames,
  CtxkitSpanNames,
  GenAiAttributes,
} from './telemetry-names';

/** Whose compose is traced. */
export interface ComposeTelemetryOwner {
  agentId: string;
  sessionId: string;
  /** The strategy's plugin id. */
  pluginId: string;
  /** The agent's event bus: its lifecycle events during the compose become events of the span. */
  events?: CtxkitEventBus;
}

const SECTIONS: readonly PayloadSection[] = ['system', 'tools', 'dynamic', 'memory', 'history'];

/**
 * Runs one compose inside a `ctxkit.compose` span, a child of the span active when it was called
 * (the framework's model-call span, the host's own), and records ctxkit's metrics from the payload's
 * stats. With no tracer provider registered the span is the API's no-op one and only the metric
 * instruments (no-ops without a meter provider) are called. A composition no model call receives
 * (`sent: false`) is a `ctxkit.read_window` span instead, and counts in no metric.
 */
export async function traceCompose(
  owner: ComposeTelemetryOwner,
  compose: () => Promise<LLMPayload>,
  sent = true,
): Promise<LLMPayload> {
  const started = performance.now();
  const span = trace
    .getTracer(CTXKIT_INSTRUMENTATION_SCOPE)
    .startSpan(sent ? CtxkitSpanNames.compose : CtxkitSpanNames.readWindow, {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GenAiAttributes.agentId]: owner.agentId,
        [GenAiAttributes.conversationId]: owner.sessionId,
        [CtxkitAttributes.strategyId]: owner.pluginId,
      },
    });
  const recording = span.isRecording();
  const bridge = recording && owner.events !== undefined ? SessionSpanBridge.of(owner.events) : undefined;
  bridge?.openCompose(owner.sessionId, span);
  try {
    // A span that records is the active one while the strategy composes (helper-model calls nest under it); an
    // unsampled or no-op one is not worth a context.
    const payload = await (recording ? context.with(trace.setSpan(context.active(), span), compose) : compose());
    try {
      if (recording) describeCompose(span, payload.stats);
      if (sent) recordComposeMetrics(payload.stats, owner.pluginId, started);
    } catch {
      // Telemetry never breaks a compose.
    }
    return payload;
  } catch (error) {
    if (recording) {
      const type = (error as { code?: unknown } | null)?.code;
      span.setAttribute(
        GenAiAttributes.errorType,
        typeof type === 'string' ? type : ((error as Error | null)?.name ?? 'Error'),
      );
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error | null)?.message ?? String(error) });
    }
    throw error;
  } finally {
    bridge?.close(owner.sessionId, span);
    span.end();
  }
}

/** The compose span's attributes for `stats`, and one `ctxkit.reduction` event per reduction record. */
export function composeAttributes(stats: PayloadStats): Attributes {
  const attributes: Attributes = {
    [GenAiAttributes.requestModel]: stats.model,
    [CtxkitAttributes.strategyId]: stats.strategyId,
    [CtxkitAttributes.budgetContextWindow]: stats.budget.contextWindow,
    [CtxkitAttributes.budgetMaxContextTokens]: stats.budget.maxContextTokens,
    [CtxkitAttributes.budgetReserveOutputTokens]: stats.budget.reserveOutputTokens,
    [CtxkitAttributes.budgetAvailable]: stats.budget.available,
    [CtxkitAttributes.budgetUsed]: stats.budget.used,
    [CtxkitAttributes.tokensInput]: stats.input_tokens,
    [CtxkitAttributes.tokensSent]: stats.output_tokens,
    [CtxkitAttributes.tokensSaved]: tokensSaved(stats),
    [CtxkitAttributes.compressRatio]: stats.compress_ratio,
    [CtxkitAttributes.messagesInput]: stats.messages.input,
    [CtxkitAttributes.messagesSent]: stats.messages.output,
    [CtxkitAttributes.usageLevel]: stats.usageLevel,
    [CtxkitAttributes.reductionsTotal]: stats.reductions.length,
  };
  for (const section of SECTIONS)
    attributes[`${CtxkitAttributes.sectionPrefix}${section}.tokens`] = stats.sections[section];
  for (const record of stats.reductions) {
    const key = `${CtxkitAttributes.reductionsPrefix}${record.action}`;
    attributes[key] = ((attributes[key] as number | undefined) ?? 0) + 1;
  }
  if (stats.repeatedPrefixTokens !== undefined)
    attributes[CtxkitAttributes.cachedPrefixTokens] = stats.repeatedPrefixTokens;
  const pins = stats.extra?.pins as Partial<PinStats> | undefined;
  if (typeof pins?.count === 'number') attributes[CtxkitAttributes.pinsCount] = pins.count;
  if (typeof pins?.tokens === 'number') attributes[CtxkitAttributes.pinsTokens] = pins.tokens;
  const recall = stats.extra?.recall as Partial<RecallStats> | undefined;
  if (Array.isArray(recall?.hits)) attributes[CtxkitAttributes.recallHits] = recall.hits.length;
  if (typeof recall?.tokens === 'number') attributes[CtxkitAttributes.recallTokens] = recall.tokens;
  return attributes;
}

function describeCompose(span: Span, stats: PayloadStats): void {
  span.setAttributes(composeAttributes(stats));
  for (const record of stats.reductions)
    span.addEvent(CtxkitSpanEventNames.reduction, reductionEventAttributes(record));
}

function tokensSaved(stats: PayloadStats): number {
  return Math.max(0, stats.input_tokens - stats.output_tokens);
}

function recordComposeMetrics(stats: PayloadStats, pluginId: string, started: number): void {
  const instruments = ctxkitInstruments();
  if (instruments === undefined) return;
  const attributes: Attributes = {
    [CtxkitAttributes.strategyId]: pluginId,
    [GenAiAttributes.requestModel]: stats.model,
  };
  instruments.tokensSent.add(stats.output_tokens, attributes);
  instruments.tokensSaved.add(tokensSaved(stats), attributes);
  instruments.composeDuration.record((performance.now() - started) / 1000, attributes);
  if (stats.repeatedPrefixTokens !== undefined) {
    instruments.tokensCachedPrefix.add(stats.repeatedPrefixTokens, attributes);
    if (stats.output_tokens > 0)
      instruments.cacheShare.record(stats.repeatedPrefixTokens / stats.output_tokens, attributes);
  }
  const byAction = new Map<string, number>();
  for (const record of stats.reductions) byAction.set(record.action, (byAction.get(record.action) ?? 0) + 1);
  for (const [action, count] of byAction)
    instruments.reductions.add(count, { ...attributes, [CtxkitAttributes.reductionAction]: action });
}
