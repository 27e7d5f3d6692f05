/**
 * `@ctxkit/core/strategy-kit`: the building blocks standard strategies are made of, for plugin authors
 * and hosts: the budget-filling payload composer, the history ledger and window selection, tool-call
 * grouping, truncation, the budget formula, token counting implementations, store key and
 * compare-and-set helpers, epochs and previews, config validation, and the foundation a standard
 * strategy stands on (counter, budget from config, composer, turns, disposal). The contracts,
 * errors, events and runtime are in `@ctxkit/core`. Explicit named exports only.
 * @see docs/06-writing-a-strategy.md
 */

// token counting implementations
export type { BpeEncoder } from '../token-counting/bpe-encoder';
export { GptTokenizerEncoder, JsTiktokenEncoder } from '../token-counting/bpe-encoder';
export { BpeTokenCounter, SharedCountCaches } from '../token-counting/bpe-token-counter';
export { contentDigest } from '../token-counting/content-digest';
export { HeuristicTokenCounter } from '../token-counting/heuristic-counter';
export { imageTokens } from '../token-counting/image-tokens';
export { contentText, messageImages, messageText } from '../token-counting/message-text';
export { messageOverheadTokens, messageTokens } from '../token-counting/message-tokens';
export type { BpeEncodingName, ResolvedEncoding } from '../token-counting/model-encodings';
export { resolveModelEncoding } from '../token-counting/model-encodings';
export { utf8ByteLength } from '../token-counting/text-parts';
export { MESSAGE_OVERHEAD_TOKENS } from '../token-counting/token-counter';
// model calls: deadlines, retry-after waits, network error codes
export { checkedVectors } from '../model-calls/checked-vectors';
export { completeBeforeDeadline } from '../model-calls/complete-before-deadline';
export type { ContentlessSummary } from '../model-calls/contentless-summary';
export { contentlessSummary, contentlessSummaryMessage } from '../model-calls/contentless-summary';
export { DeadlineBoundLLMClient } from '../model-calls/deadline-bound-llm-client';
export type { FailureBackoffOptions } from '../model-calls/failure-backoff';
export { FailureBackoff } from '../model-calls/failure-backoff';
export { networkErrorCode } from '../model-calls/network-error-code';
export { retryAfterMs } from '../model-calls/retry-after';
export { untilAborted } from '../model-calls/until-aborted';
// one piece of work at a time
export { SerialQueue } from '../concurrency/serial-queue';
// history ledger and the reusable window selection (sliding window, summarization, entities, cache)
export type { BuildPayloadOptions, PayloadSections } from '../ledger/build-payload';
export { buildPayload } from '../ledger/build-payload';
export type { LedgerContinuity } from '../ledger/history-ledger';
export { HistoryLedger, LARGE_MESSAGE_CHARS, messageFingerprint } from '../ledger/history-ledger';
export type { HistoryWindow, SelectHistoryWindowOptions } from '../ledger/select-history-window';
export {
  MIN_TRUNCATED_OUTPUT_TOKENS,
  OLDER_THAN_WINDOW_REASON,
  selectHistoryWindow,
} from '../ledger/select-history-window';
export { TurnIndex } from '../ledger/turn-index';
// what a standard strategy is built on besides its policy: counter, budget, composer, turns, disposal
export type { BudgetConfig } from '../strategy-foundation/budget-from-config';
export { budgetFromConfig } from '../strategy-foundation/budget-from-config';
export type { StrategyFoundationOptions } from '../strategy-foundation/strategy-foundation';
export { StrategyFoundation } from '../strategy-foundation/strategy-foundation';
export type { StrategyOwnerNames } from '../strategy-foundation/strategy-lifetime';
export { StrategyLifetime } from '../strategy-foundation/strategy-lifetime';
export type { HistoryShapeCheck } from '../strategy-foundation/turn-counter';
export { TurnCounter } from '../strategy-foundation/turn-counter';
// the budget-filling payload composer every standard strategy builds on: a pure layout, and the owner of its hold
export type { HistoryRange } from '../composer/kept-history';
export type { HeldForm, KeptHead, LayoutHold } from '../composer/layout-hold';
export { EMPTY_HOLD } from '../composer/layout-hold';
export type { LayoutEnvironment } from '../composer/layout-payload';
export { layoutPayload } from '../composer/layout-payload';
export type { ExpandTools, Lightened, LighterForm, LighterForms } from '../composer/lighter-forms';
export { lightenOldestFirst, withForms } from '../composer/lighter-forms';
export type { MemoryBlock, MemoryBlockOutcome } from '../composer/memory-block';
export type { MemoryRole } from '../composer/memory-frame';
export {
  DEFAULT_MEMORY_ROLE,
  escapeMemoryText,
  MEMORY_RECORD_NOTE,
  memoryBlockText,
  memoryPreamble,
} from '../composer/memory-frame';
export { DEFAULT_MEMORY_SHARE, memoryAllowance } from '../composer/memory-share';
export type {
  ComposedPayload,
  ComposeRequest,
  PayloadComposerOptions,
  PayloadComposerOwner,
  PreviousPayload,
} from '../composer/payload-composer';
export { PayloadComposer } from '../composer/payload-composer';
export type { CollapsedHistory } from '../composer/tool-result-collapser';
export {
  callAnswered,
  collapsedToolResult,
  toolContentText,
  ToolResultCollapser,
} from '../composer/tool-result-collapser';
// truncation
export { elisionMarker } from '../truncation/elision-marker';
export { countLineFeeds, surrogateSafeCut } from '../truncation/safe-cut';
export type { TruncateToFitOptions } from '../truncation/truncate-to-fit';
export { truncateHead, truncateHeadTail, truncateTail, truncateToFit } from '../truncation/truncate-to-fit';
export type { TruncationKind, TruncationResult } from '../truncation/truncation-kind';
export { cutToUtf8Bytes } from '../truncation/utf8-cut';
// messages (grouping, validation)
export { assertHistoryShape, assertMessageShape } from '../messages/assert-history-shape';
export type { PayloadProblem } from '../messages/find-payload-problems';
export { findPayloadProblems } from '../messages/find-payload-problems';
export { groupAt, groupEndingAt, groupToolCalls } from '../messages/group-tool-calls';
export { HistoryGrowth } from '../messages/history-growth';
export type { MessageGroup, MessageGroupKind } from '../messages/message-group';
// the budget formula and usage levels
export type { BudgetOptions } from '../budget/compute-budget';
export {
  computeBudget,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_SAFETY_MARGIN_RATIO,
  remainingForToolOutput,
  TOOL_OUTPUT_SHARE,
  withUsage,
} from '../budget/compute-budget';
export { USAGE_LEVEL_THRESHOLDS, usageLevel } from '../budget/usage-level';
// reductions reported by their events
export { emitReductions } from '../events/reduction-events';
// store keys and compare-and-set
export { assertStoreKey, assertStoreKeyPrefix, formatStoreKey, STORE_KINDS } from '../stores/store-key';
export { decodeStoreKeyPart, encodeStoreKeyPart, MAX_ENCODED_STORE_KEY_PART } from '../stores/store-key-part-encoding';
export type { VersionedContextStore } from '../stores/versioned-store-access';
export { readVersioned, supportsCompareAndSet, UNVERSIONED, writeIfVersion } from '../stores/versioned-store-access';
// recall: the older turns the newest user message needs, as a layer of any strategy
export { escapeRecalledText, RECALL_TAG } from '../recall/recall-block';
export type { RecallConfig } from '../recall/recall-config';
export { defaultRecallConfig, RECALL_CONFIG_SCHEMA } from '../recall/recall-config';
export type { RecallEmbeddingState } from '../recall/recall-embedding-state';
export type { PreparedRecall, RecallLayerOptions, RecallStats } from '../recall/recall-layer';
export { RECALL_BLOCK_NAME, RECALLED_REASON, RecallLayer } from '../recall/recall-layer';
export { recallBackendFor, StoreRecallBackend } from '../recall/store-recall-backend';
// undoable reductions (epochs) kept in the store
export type { EpochDescription, EpochLogOptions, TakenEpoch } from '../epochs/epoch-log';
export { DEFAULT_MAX_EPOCHS, EpochLog } from '../epochs/epoch-log';
export { payloadPreview } from '../epochs/payload-preview';
export { previewItem, previewItems } from '../epochs/preview-item';
// config validation
export type { ConfigSource } from '../plugins/apply-config-schema';
export { applyConfigSchema } from '../plugins/apply-config-schema';
export type { AjvInstance } from '../plugins/create-ajv';
export { createAjv, schemaDialect } from '../plugins/create-ajv';
// the source language of a file path (small-context tool summaries)
export type { SourceLanguage } from '../outline/source-language';
export { baseName, languageOfPath } from '../outline/source-language';
