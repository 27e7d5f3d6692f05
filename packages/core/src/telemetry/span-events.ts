import type { Attributes } from '@opentelemetry/api';

import type { ReductionRecord } from '../contracts/llm-payload';
import type { CtxkitEventName, CtxkitEventPayloads } from '../events/ctxkit-events';
import { CtxkitAttributes, CtxkitSpanEventNames, CtxkitSpanNames } from './telemetry-names';

/**
 * How ctxkit's typed events become OpenTelemetry span events, in one place. Each record of a
 * payload's `stats.reductions` (the records `history-trim`, `tool-output-trim`, `history-recall`,
 * `summary-end`, `compaction-end` and `entities-updated` report) is one `ctxkit.reduction` event on
 * that payload's compose span; the lifecycle events below are one span event each, on the compose
 * span of their session while one is open, else on a span of their own (see {@link LIFECYCLE_SPAN}).
 */

/** The attributes of the `ctxkit.reduction` span event of one reduction record. */
export function reductionEventAttributes(record: ReductionRecord): Attributes {
  const attributes: Attributes = {
    [CtxkitAttributes.reductionAction]: record.action,
    [CtxkitAttributes.reductionFrom]: record.from,
    [CtxkitAttributes.reductionTo]: record.to,
    [CtxkitAttributes.reductionMessages]: record.messages,
    [CtxkitAttributes.reductionReason]: record.reason,
    [CtxkitAttributes.reductionRecoverableFrom]: record.recoverableFrom,
  };
  if (record.tokensBefore !== undefined) attributes[CtxkitAttributes.reductionTokensBefore] = record.tokensBefore;
  if (record.tokensAfter !== undefined) attributes[CtxkitAttributes.reductionTokensAfter] = record.tokensAfter;
  if (record.refs !== undefined && record.refs.length > 0)
    attributes[CtxkitAttributes.reductionRefs] = [...record.refs];
  return attributes;
}

/** The lifecycle events that become span events. */
export type LifecycleEventName =
  | 'summary-end'
  | 'summary-error'
  | 'entities-updated'
  | 'entities-error'
  | 'compaction-end'
  | 'compaction-error'
  | 'epoch-undone'
  | 'history-recall'
  | 'usage-level-change';

/** The lifecycle events, in the order the docs list them. */
export const LIFECYCLE_EVENTS: readonly LifecycleEventName[] = [
  'summary-end',
  'summary-error',
  'entities-updated',
  'entities-error',
  'compaction-end',
  'compaction-error',
  'epoch-undone',
  'history-recall',
  'usage-level-change',
];

/** The span a lifecycle event gets when it happens outside a compose of its session (background work, an undo). */
export const LIFECYCLE_SPAN: Readonly<Record<LifecycleEventName, string>> = {
  'summary-end': CtxkitSpanNames.fold,
  'summary-error': CtxkitSpanNames.fold,
  'entities-updated': CtxkitSpanNames.extraction,
  'entities-error': CtxkitSpanNames.extraction,
  'compaction-end': CtxkitSpanNames.compaction,
  'compaction-error': CtxkitSpanNames.compaction,
  'epoch-undone': CtxkitSpanNames.undo,
  'history-recall': CtxkitSpanNames.recall,
  'usage-level-change': CtxkitSpanNames.usageLevel,
};

/** One span event: its name and attributes. */
export interface SpanEventSpec {
  name: string;
  attributes: Attributes;
}

/** The span event of a lifecycle event. */
export function lifecycleSpanEvent<K extends LifecycleEventName>(
  event: K,
  payload: CtxkitEventPayloads[K],
): SpanEventSpec {
  const p = payload as CtxkitEventPayloads[LifecycleEventName];
  switch (event) {
    case 'summary-end': {
      const e = p as CtxkitEventPayloads['summary-end'];
      return {
        name: CtxkitSpanEventNames.fold,
        attributes: {
          'ctxkit.fold.turns': e.turns,
          'ctxkit.fold.messages': e.messages,
          'ctxkit.fold.model': e.model,
          'ctxkit.fold.offline': e.offline,
          'ctxkit.fold.summary_tokens': e.summaryTokens,
          'ctxkit.fold.replaced_tokens': e.replacedTokens,
          'ctxkit.fold.version': e.version,
        },
      };
    }
    case 'summary-error': {
      const e = p as CtxkitEventPayloads['summary-error'];
      return {
        name: CtxkitSpanEventNames.foldError,
        attributes: {
          'error.type': e.error.code,
          'ctxkit.error.message': e.error.message,
          'ctxkit.fold.consecutive_failures': e.consecutiveFailures,
        },
      };
    }
    case 'entities-updated': {
      const e = p as CtxkitEventPayloads['entities-updated'];
      return {
        name: CtxkitSpanEventNames.extraction,
        attributes: {
          'ctxkit.extraction.version': e.version,
          'ctxkit.extraction.source_message_index': e.sourceMessageIndex,
          'ctxkit.extraction.fields': e.diff.map((change) => change.field),
          'ctxkit.extraction.offline': e.offline,
        },
      };
    }
    case 'entities-error': {
      const e = p as CtxkitEventPayloads['entities-error'];
      return {
        name: CtxkitSpanEventNames.extractionError,
        attributes: { 'error.type': e.reason, 'ctxkit.extraction.attempts': e.attempts },
      };
    }
    case 'compaction-end': {
      const e = p as CtxkitEventPayloads['compaction-end'];
      return {
        name: CtxkitSpanEventNames.compaction,
        attributes: {
          'ctxkit.compaction.trigger': e.trigger,
          'ctxkit.compaction.tokens_before': e.tokensBefore,
          'ctxkit.compaction.tokens_after': e.tokensAfter,
          'ctxkit.compaction.transcript_ref': e.transcriptRef,
          'ctxkit.compaction.messages': e.messages.length,
        },
      };
    }
    case 'compaction-error': {
      const e = p as CtxkitEventPayloads['compaction-error'];
      return {
        name: CtxkitSpanEventNames.compactionError,
        attributes: {
          'ctxkit.compaction.trigger': e.trigger,
          'error.type': e.error.code,
          'ctxkit.error.message': e.error.message,
        },
      };
    }
    case 'epoch-undone': {
      const e = p as CtxkitEventPayloads['epoch-undone'];
      return {
        name: CtxkitSpanEventNames.undo,
        attributes: {
          'ctxkit.undo.epoch_id': e.epoch.id,
          'ctxkit.undo.epoch_kind': e.epoch.kind,
          'ctxkit.undo.also_undone': e.alsoUndone.map((epoch) => epoch.id),
          'ctxkit.undo.history_restored': e.historyRestored,
        },
      };
    }
    case 'history-recall': {
      const e = p as CtxkitEventPayloads['history-recall'];
      return {
        name: CtxkitSpanEventNames.recall,
        attributes: {
          [CtxkitAttributes.recallHits]: e.hits.length,
          [CtxkitAttributes.recallTokens]: e.tokens,
          'ctxkit.recall.candidates': e.candidates,
          'ctxkit.recall.embedding': e.embedding,
          'ctxkit.recall.ranges': e.hits.map((hit) => `${hit.sessionId}[${hit.from},${hit.to})`),
        },
      };
    }
    case 'usage-level-change': {
      const e = p as CtxkitEventPayloads['usage-level-change'];
      return {
        name: CtxkitSpanEventNames.usageLevel,
        attributes: {
          'ctxkit.usage_level.from': e.from,
          'ctxkit.usage_level.to': e.to,
          [CtxkitAttributes.budgetUsed]: e.used,
          [CtxkitAttributes.budgetContextWindow]: e.contextWindow,
        },
      };
    }
    default:
      return assertNever(event as never);
  }
}

/** The start event of the background work a lifecycle event ends, when there is one. */
export const LIFECYCLE_START: Partial<Record<LifecycleEventName, CtxkitEventName>> = {
  'summary-end': 'summary-start',
  'summary-error': 'summary-start',
  'compaction-end': 'compaction-start',
  'compaction-error': 'compaction-start',
};

function assertNever(value: never): never {
  throw new Error(`no span event for ${String(value)}`);
}
