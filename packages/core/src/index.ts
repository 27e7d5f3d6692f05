/**
 * @ctxkit/core: contracts, token counting, budget, message grouping, truncation, plugin manifests,
 * loader and DI wiring, events, stores and errors. Explicit named exports only.
 */
import 'reflect-metadata';

// contracts
export type {
  AssistantMessage,
  ChatMessage,
  ChatRole,
  ContentPart,
  ImageContentPart,
  ReadonlyChatMessage,
  ReadonlyHistory,
  ReasoningItem,
  SystemMessage,
  TextContentPart,
  ToolCall,
  ToolMessage,
  ToolOutputRef,
  UserMessage,
} from './contracts/chat-message';
export type { JsonSchema, ToolDefinition } from './contracts/tool-definition';
export type {
  LLMPayload,
  PayloadBudget,
  PayloadSection,
  PayloadStats,
  RecoverySource,
  ReductionAction,
  ReductionRecord,
  SectionTokens,
  UsageLevel,
} from './contracts/llm-payload';
export type {
  CompactionCheckpoint,
  CompactionHookResult,
  ComposeOptions,
  ContextManager,
  ContextManagerCapabilities,
  ContributedTool,
  IContextManager as ContextManagerContract,
  ToolExecutionContext,
} from './contracts/context-manager';
export type { ContextSession } from './contracts/context-session';
export type { Pin, PinKind, PinOptions } from './contracts/pin';
export type { EpochKind, PreviewItem, ReductionEpoch, ReductionPreview, UndoResult } from './contracts/reduction-epoch';
export { hasCompactionHooks, hasContributedTools, hasDispose, hasWhenIdle, truncatesToolOutputs } from './contracts/context-manager';
export type { ILLMClient as LLMClient, LLMCompletion, LLMCompletionRequest } from './contracts/llm-client';
export type {
  BlobRange,
  IContextStore as ContextStore,
  StoreKey,
  StoreKeyPrefix,
  StoreKind,
  VersionedSetResult,
  VersionedValue,
} from './contracts/context-store';
export type { ProviderUsage, TokenUsage } from './contracts/token-usage';
export { createTokenUsage, toTokenUsage } from './contracts/token-usage';

// token counting
export type { ITokenCounter as TokenCounter, TokenCounterMeta, TokenizerBackend } from './token-counting/token-counter';
export { MESSAGE_OVERHEAD_TOKENS } from './token-counting/token-counter';

// models
export type { ModelInfo } from './models/model-info';
export type { IModelRegistry as ModelRegistryContract } from './models/model-registry';

// plugins
export type { StrategyContext, StrategyFactory, StrategyPluginModule } from './plugins/strategy-plugin';
export { defineStrategy } from './plugins/strategy-plugin';

// DI tokens (same names as the interfaces they stand for)
export {
  IAgentId,
  IContextManager,
  IContextStore,
  IEventBus,
  ILLMClient,
  IModelRegistry,
  IStrategyContext,
  ITokenCounter,
} from './di/injection-tokens';

// events
export type { CtxkitEventBase, CtxkitEventMap, CtxkitEventName, CtxkitEventPayloads } from './events/ctxkit-events';
export { CtxkitEventBus, safeEmit } from './events/event-bus';

// errors
export { completeBeforeDeadline } from './model-calls/complete-before-deadline';
export { networkErrorCode } from './model-calls/network-error-code';
export { retryAfterMs } from './model-calls/retry-after';
export { SerialQueue } from './concurrency/serial-queue';
export { ErrorCodes } from './errors/error-codes';
export type { ErrorCode } from './errors/error-codes';
export { CtxkitError } from './errors/ctxkit-error';
export type { CtxkitErrorOptions, ErrorCategory } from './errors/ctxkit-error';
export { BudgetExceededError } from './errors/budget-exceeded-error';
export { CapabilityUnsupportedError } from './errors/capability-unsupported-error';
export { EpochNotFoundError } from './errors/epoch-not-found-error';
export { PinBudgetExceededError } from './errors/pin-budget-exceeded-error';
export type { PinCost, PinShortfall } from './errors/pin-budget-exceeded-error';
export { PinTargetError } from './errors/pin-target-error';
export type { BudgetShortfall } from './errors/budget-exceeded-error';
export { CompactionNoProgressError } from './errors/compaction-no-progress-error';
export type { CompactionShortfall, UnremovablePart } from './errors/compaction-no-progress-error';
export { ConfigSchemaError } from './errors/config-schema-error';
export { ConfigValidationError } from './errors/config-validation-error';
export { ContextOverflowError } from './errors/context-overflow-error';
export type { ContextOverflowDetails } from './errors/context-overflow-error';
export { ManifestValidationError } from './errors/manifest-validation-error';
export type { ManifestIssue } from './errors/manifest-issue';
export { DuplicatePluginError } from './errors/duplicate-plugin-error';
export { PluginLoadError } from './errors/plugin-load-error';
export { PluginNotFoundError } from './errors/plugin-not-found-error';
export { UnsafePathError } from './errors/unsafe-path-error';
export { DisposedError } from './errors/disposed-error';
export { StrategyError } from './errors/strategy-error';
export { HistoryValidationError } from './errors/history-validation-error';
export { StoreError } from './errors/store-error';
export { StoreKeyError } from './errors/store-key-error';
export { LLMClientInUseError } from './errors/llm-client-in-use-error';
export { LLMNotConfiguredError } from './errors/llm-not-configured-error';
export { LLMRequestError } from './errors/llm-request-error';
export { LLMResponseError } from './errors/llm-response-error';
export { LLMTimeoutError } from './errors/llm-timeout-error';
export type { LLMErrorDetails } from './errors/llm-error-details';
export { ProviderPayloadError } from './errors/provider-payload-error';
export { ToolExecutionError } from './errors/tool-execution-error';
export { ToolNotFoundError } from './errors/tool-not-found-error';
export { ToolOutputRefNotFoundError } from './errors/tool-output-ref-not-found-error';

// ---- sections below are filled by their areas; keep each block sorted ----
// token counting implementations
export { HeuristicTokenCounter } from './token-counting/heuristic-counter';
export type { CreateTokenCounterOptions } from './token-counting/create-token-counter';
export { createTokenCounter, DEFAULT_TOKENIZER_BACKEND } from './token-counting/create-token-counter';
export type { BpeEncoder } from './token-counting/bpe-encoder';
export { GptTokenizerEncoder, JsTiktokenEncoder } from './token-counting/bpe-encoder';
export { BpeTokenCounter, SharedCountCaches } from './token-counting/bpe-token-counter';
export type { BpeEncodingName, ResolvedEncoding } from './token-counting/model-encodings';
export { resolveModelEncoding } from './token-counting/model-encodings';
export type { CalibrationObservation, CountCalibrationOptions, CountCalibrationSnapshot } from './token-counting/calibration/count-calibration';
export { CountCalibration } from './token-counting/calibration/count-calibration';
export { CalibratedTokenCounter } from './token-counting/calibration/calibrated-token-counter';
export type { AnchoredCount, CountedPayload } from './token-counting/calibration/usage-anchored-count';
export { UsageAnchoredCount } from './token-counting/calibration/usage-anchored-count';
export { BoundedCountCache, DEFAULT_COUNT_CACHE_ENTRIES } from './token-counting/bounded-count-cache';
export { contentDigest } from './token-counting/content-digest';
export type { TextPartOptions } from './token-counting/text-parts';
export { forEachTextPart, MAX_PIECE_CHARS, SEGMENT_CHARS, utf8ByteLength } from './token-counting/text-parts';
export { imageTokens } from './token-counting/image-tokens';
export { contentText, messageImages, messageText } from './token-counting/message-text';
export { messageOverheadTokens, messageTokens } from './token-counting/message-tokens';
// trimming
export type { Embedder, SemanticOptions, TrimMessagesOptions, TrimMessagesResult, TrimStatistics } from './trimming/trim-messages';
export { trimMessages } from './trimming/trim-messages';
export { cosineSimilarity } from './trimming/cosine-similarity';
// history ledger and the reusable window selection (sliding window, summarization, entities, cache)
export type { LedgerContinuity } from './ledger/history-ledger';
export { HistoryLedger, LARGE_MESSAGE_CHARS, messageFingerprint } from './ledger/history-ledger';
export { TurnIndex } from './ledger/turn-index';
export type { HistoryWindow, SelectHistoryWindowOptions } from './ledger/select-history-window';
export { MIN_TRUNCATED_OUTPUT_TOKENS, OLDER_THAN_WINDOW_REASON, selectHistoryWindow } from './ledger/select-history-window';
export type { BuildPayloadOptions, PayloadSections } from './ledger/build-payload';
export { buildPayload } from './ledger/build-payload';
// the budget-filling payload composer every standard strategy builds on
export type { ComposedPayload, ComposeRequest, PayloadComposerOptions, PayloadComposerOwner } from './composer/payload-composer';
export { PayloadComposer } from './composer/payload-composer';
export type { MemoryBlock, MemoryBlockOutcome } from './composer/memory-block';
export { DEFAULT_MEMORY_SHARE, memoryAllowance } from './composer/memory-share';
export type { CollapsedHistory } from './composer/tool-result-collapser';
export { collapsedToolResult, toolContentText, ToolResultCollapser } from './composer/tool-result-collapser';
// truncation
export type { TruncationKind, TruncationResult } from './truncation/truncation-kind';
export type { TruncateToFitOptions } from './truncation/truncate-to-fit';
export { truncateHead, truncateHeadTail, truncateTail, truncateToFit } from './truncation/truncate-to-fit';
export { cutToUtf8Bytes } from './truncation/utf8-cut';
export { elisionMarker } from './truncation/elision-marker';
export { countLineFeeds, surrogateSafeCut } from './truncation/safe-cut';
// messages (grouping, validation)
export type { MessageGroup, MessageGroupKind } from './messages/message-group';
export { assertHistoryShape, assertMessageShape } from './messages/assert-history-shape';
export { groupAt, groupEndingAt, groupToolCalls } from './messages/group-tool-calls';
export type { PayloadProblem } from './messages/find-payload-problems';
export { findPayloadProblems } from './messages/find-payload-problems';
// budget and truncation
export type { BudgetOptions } from './budget/compute-budget';
export {
  computeBudget,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_SAFETY_MARGIN_RATIO,
  remainingForToolOutput,
  TOOL_OUTPUT_SHARE,
  withUsage,
} from './budget/compute-budget';
export { USAGE_LEVEL_THRESHOLDS, usageLevel } from './budget/usage-level';
// model registry implementation
export { BUILTIN_MODELS } from './models/builtin-models';
export { ModelRegistry } from './models/default-model-registry';
// stores
export type { FileContextStoreOptions } from './stores/file-context-store';
export { FileContextStore } from './stores/file-context-store';
export type { MemoryContextStoreOptions } from './stores/memory-context-store';
export { MemoryContextStore } from './stores/memory-context-store';
export { assertStoreKey, assertStoreKeyPrefix, formatStoreKey, STORE_KINDS } from './stores/store-key';
export { decodeStoreKeyPart, encodeStoreKeyPart, MAX_ENCODED_STORE_KEY_PART } from './stores/store-key-part-encoding';
export type { VersionedContextStore } from './stores/versioned-store-access';
export { readVersioned, supportsCompareAndSet, UNVERSIONED, writeIfVersion } from './stores/versioned-store-access';
// undoable reductions (epochs) kept in the store
export type { EpochDescription, EpochLogOptions, TakenEpoch } from './epochs/epoch-log';
export { DEFAULT_MAX_EPOCHS, EpochLog } from './epochs/epoch-log';
export { payloadPreview } from './epochs/payload-preview';
export { previewItem, previewItems } from './epochs/preview-item';
// pins: what every session keeps whatever its strategy drops
export type { DeclaredPin } from './pins/declared-pin';
export { DEFAULT_PIN_SHARE } from './pins/pin-share';
export { PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL } from './pins/pin-tools';
// manifests, loader, runtime
export type { ManifestKind, ManifestValidationResult, ValidateManifestOptions } from './plugins/validate-manifest';
export { validateManifest } from './plugins/validate-manifest';
export { applyConfigSchema } from './plugins/apply-config-schema';
export type { ConfigSource } from './plugins/apply-config-schema';
export { isValidPluginId, PLUGIN_ID_PATTERN } from './plugins/plugin-id';
export type { AgentManifest, PluginManifest } from './plugins/plugin-manifest';
export { DEFAULT_STRATEGY_ID } from './plugins/plugin-manifest';
export type { DiscoverPluginsOptions, PluginDiscovery, PluginDiscoveryProblem } from './plugins/discover-plugins';
export { discoverPlugins } from './plugins/discover-plugins';
export type { PluginRecord } from './plugins/plugin-record';
export { AgentContainer } from './di/agent-container';
export type { Constructor } from './di/agent-container';
export type { AgentHandle } from './runtime/agent-handle';
export { DEFAULT_SESSION_ID } from './runtime/agent-handle';
export type {
  ContextRuntime,
  ContextRuntimeOptions,
  InProcessStrategyManifest,
  LoadAgentOptions,
  PluginInfo,
  PluginSummary,
} from './runtime/context-runtime';
export { createContextRuntime, DEFAULT_AGENT_MODEL } from './runtime/create-context-runtime';
export { openAgent } from './runtime/open-agent';
export type { AgentSource, OpenAgentOptions, OpenedAgent } from './runtime/open-agent';

// one-line tool summaries (small-context mode A) and the source languages they name
export { oneLineToolSummary } from './outline/one-line-tool-summary';
export type { ToolResultSummaryInput } from './outline/one-line-tool-summary';
export { baseName, languageOfPath } from './outline/source-language';
export type { SourceLanguage } from './outline/source-language';
