/**
 * The names ctxkit's OpenTelemetry spans, span events, attributes and metrics use, in one place
 * (docs/15-observability.md lists each with its meaning and unit). Attributes from the OpenTelemetry
 * GenAI semantic conventions keep their `gen_ai.` names; ctxkit's own carry a `ctxkit.` prefix.
 */

/** The instrumentation scope of every tracer and meter ctxkit asks the OpenTelemetry API for. */
export const CTXKIT_INSTRUMENTATION_SCOPE = '@ctxkit/core';

/** Span names. */
export const CtxkitSpanNames = {
  /** One `composePayload` of a session, for a model call. */
  compose: 'ctxkit.compose',
  /** A composition no model call receives (`ComposeOptions.sent: false`): an adapter reading the session's window. */
  readWindow: 'ctxkit.read_window',
  /**
   * A fold (summary), extraction, compaction, undo, recall or usage-level crossing reported outside a compose of its
   * session.
   */
  fold: 'ctxkit.fold',
  extraction: 'ctxkit.extraction',
  compaction: 'ctxkit.compaction',
  undo: 'ctxkit.undo',
  recall: 'ctxkit.recall',
  usageLevel: 'ctxkit.usage_level',
} as const;

/** Span event names (on the compose span, or on a span of their own outside a compose). */
export const CtxkitSpanEventNames = {
  /** One record of `stats.reductions`. */
  reduction: 'ctxkit.reduction',
  /** A summary folded turns (`summary-end`), or failed (`summary-error`). */
  fold: 'ctxkit.fold',
  foldError: 'ctxkit.fold.error',
  /** The entity state changed (`entities-updated`), or an extraction answer stayed invalid. */
  extraction: 'ctxkit.extraction',
  extractionError: 'ctxkit.extraction.error',
  /** A compaction replaced the history (`compaction-end`), or failed. */
  compaction: 'ctxkit.compaction',
  compactionError: 'ctxkit.compaction.error',
  /** `undo` restored the state before an epoch (`epoch-undone`). */
  undo: 'ctxkit.undo',
  /** Earlier turns were recalled into the payload (`history-recall`). */
  recall: 'ctxkit.recall',
  /** The usage level crossed a boundary (`usage-level-change`). */
  usageLevel: 'ctxkit.usage_level.change',
} as const;

/** Attributes from the OpenTelemetry GenAI semantic conventions that a compose has. */
export const GenAiAttributes = {
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  operationName: 'gen_ai.operation.name',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  errorType: 'error.type',
} as const;

/** ctxkit's own span attributes. */
export const CtxkitAttributes = {
  strategyId: 'ctxkit.strategy.id',
  budgetContextWindow: 'ctxkit.budget.context_window',
  budgetMaxContextTokens: 'ctxkit.budget.max_context_tokens',
  budgetReserveOutputTokens: 'ctxkit.budget.reserve_output_tokens',
  budgetAvailable: 'ctxkit.budget.available',
  budgetUsed: 'ctxkit.budget.used',
  tokensInput: 'ctxkit.tokens.input',
  tokensSent: 'ctxkit.tokens.sent',
  tokensSaved: 'ctxkit.tokens.saved',
  cachedPrefixTokens: 'ctxkit.tokens.cached_prefix',
  compressRatio: 'ctxkit.compress_ratio',
  /** Followed by the section: `ctxkit.section.system.tokens`, … */
  sectionPrefix: 'ctxkit.section.',
  messagesInput: 'ctxkit.messages.input',
  messagesSent: 'ctxkit.messages.sent',
  /** Followed by the action: `ctxkit.reductions.dropped`, … (records of that action). */
  reductionsPrefix: 'ctxkit.reductions.',
  reductionsTotal: 'ctxkit.reductions.total',
  usageLevel: 'ctxkit.usage_level',
  pinsCount: 'ctxkit.pins.count',
  pinsTokens: 'ctxkit.pins.tokens',
  recallHits: 'ctxkit.recall.hits',
  recallTokens: 'ctxkit.recall.tokens',
  /** On a `ctxkit.reduction` event. */
  reductionAction: 'ctxkit.reduction.action',
  reductionFrom: 'ctxkit.reduction.from',
  reductionTo: 'ctxkit.reduction.to',
  reductionMessages: 'ctxkit.reduction.messages',
  reductionTokensBefore: 'ctxkit.reduction.tokens_before',
  reductionTokensAfter: 'ctxkit.reduction.tokens_after',
  reductionReason: 'ctxkit.reduction.reason',
  reductionRecoverableFrom: 'ctxkit.reduction.recoverable_from',
  reductionRefs: 'ctxkit.reduction.refs',
  /** On a helper-model span and metric: what the helper model was called for, when known. */
  helperModelOffline: 'ctxkit.helper.offline',
} as const;

/** Metric names (units in {@link CtxkitMetricUnits}). */
export const CtxkitMetricNames = {
  /** Counter: tokens of every composed payload (`stats.output_tokens`). */
  tokensSent: 'ctxkit.tokens.sent',
  /** Counter: tokens the strategy kept out (`stats.input_tokens - stats.output_tokens`, never negative). */
  tokensSaved: 'ctxkit.tokens.saved',
  /** Counter: tokens that repeat the previous payload's start (`stats.repeatedPrefixTokens`). */
  tokensCachedPrefix: 'ctxkit.tokens.cached_prefix',
  /** Histogram: per compose, `repeatedPrefixTokens / output_tokens`. */
  cacheShare: 'ctxkit.cache.share',
  /** Counter: records of `stats.reductions`, by `ctxkit.reduction.action`. */
  reductions: 'ctxkit.reductions',
  /** Histogram: how long one compose took. */
  composeDuration: 'ctxkit.compose.duration',
  /** Histogram: how long one helper-model call (summary, extraction, compaction) took. */
  helperDuration: 'ctxkit.helper.duration',
} as const;

/** The unit of each metric (UCUM, as OpenTelemetry's conventions write them). */
export const CtxkitMetricUnits: Readonly<Record<keyof typeof CtxkitMetricNames, string>> = {
  tokensSent: '{token}',
  tokensSaved: '{token}',
  tokensCachedPrefix: '{token}',
  cacheShare: '1',
  reductions: '{reduction}',
  composeDuration: 's',
  helperDuration: 's',
};
