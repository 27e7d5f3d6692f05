/**
 * @ctxkit/core: the contracts (messages, payload, context manager, sessions, stores, model clients),
 * errors, events, DI tokens, the stores, token counter creation, and the runtime that loads agents
 * from their plugin.json. The building blocks strategies are made of are in
 * `@ctxkit/core/strategy-kit`. Explicit named exports only.
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
export type {
  CompactionCheckpoint,
  CompactionHookResult,
  ComposeOptions,
  ContextManagerCapabilities,
  ContributedTool,
  ToolExecutionContext,
} from './contracts/context-manager';
export {
  hasCompactionHooks,
  hasContributedTools,
  hasDispose,
  hasWhenIdle,
  truncatesToolOutputs,
} from './contracts/context-manager';
export type { ContextSession } from './contracts/context-session';
export type {
  BlobRange,
  StoreKey,
  StoreKeyPrefix,
  StoreKind,
  VersionedSetResult,
  VersionedValue,
} from './contracts/context-store';
export type {
  CacheMissReport,
  LLMCompletion,
  LLMCompletionRequest,
  ProviderCompactionKind,
  ProviderCompactionRequest,
  ProviderName,
} from './contracts/llm-client';
export type {
  InvalidatedThinking,
  LLMPayload,
  PayloadBudget,
  PayloadSection,
  PayloadStats,
  RecoverySource,
  ReductionAction,
  ReductionCause,
  ReductionRecord,
  SectionTokens,
  ThinkingPrefixChange,
  UsageLevel,
} from './contracts/llm-payload';
export type { Pin, PinKind, PinOptions } from './contracts/pin';
export type {
  IRecallBackend,
  RecallEntry,
  RecallReadResult,
  RecallRecord,
  RecallReset,
  RecallScopeKey,
  RecallSearchHit,
  RecallVectors,
} from './contracts/recall-backend';
export type { EpochKind, PreviewItem, ReductionEpoch, ReductionPreview, UndoResult } from './contracts/reduction-epoch';
export type { EmbedOptions } from './contracts/text-embedder';
export type { ProviderUsage, TokenUsage } from './contracts/token-usage';
export { createTokenUsage, toTokenUsage } from './contracts/token-usage';
export type { JsonSchema, ToolDefinition } from './contracts/tool-definition';
export { conversationCacheKey } from './model-calls/conversation-cache-key';
export { toCacheMissReport } from './model-calls/provider-cache-miss';
export { providerCompactionItem, providerCompactionText } from './model-calls/provider-compaction-item';

// token counting
export type { TokenCounterMeta, TokenizerBackend } from './token-counting/token-counter';

// models
export type { ModelInfo } from './models/model-info';

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
  ITextEmbedder,
  ITokenCounter,
} from './di/injection-tokens';

// events
export type { CtxkitEventBase, CtxkitEventMap, CtxkitEventName, CtxkitEventPayloads } from './events/ctxkit-events';
export { CtxkitEventBus, safeEmit } from './events/event-bus';

// OpenTelemetry (docs/15-observability.md)
export {
  CTXKIT_INSTRUMENTATION_SCOPE,
  CtxkitAttributes,
  CtxkitMetricNames,
  CtxkitMetricUnits,
  CtxkitSpanEventNames,
  CtxkitSpanNames,
  GenAiAttributes,
} from './telemetry/telemetry-names';
export type {
  MessageCallState,
  MessageLife,
  MessageLifeSpan,
  MessageState,
  SessionExplanation,
} from './trace/explain-session';
export { explainSession } from './trace/explain-session';
export { readSessionTrace } from './trace/read-session-trace';
export type { SessionTrace, SessionTraceHeader, SessionTraceOptions, SessionTraceSetting } from './trace/session-trace';
export {
  DEFAULT_SESSION_TRACE_MAX_BYTES,
  MIN_SESSION_TRACE_MAX_BYTES,
  sessionTraceSegmentKey,
} from './trace/session-trace';
export type { SessionTraceEntry, SessionTraceReduction } from './trace/session-trace-entry';

// errors
export { AgentSourceError } from './errors/agent-source-error';
export type { BudgetShortfall } from './errors/budget-exceeded-error';
export { BudgetExceededError } from './errors/budget-exceeded-error';
export { CapabilityUnsupportedError } from './errors/capability-unsupported-error';
export type { CompactionShortfall, UnremovablePart } from './errors/compaction-no-progress-error';
export { CompactionNoProgressError } from './errors/compaction-no-progress-error';
export { ConfigSchemaError } from './errors/config-schema-error';
export { ConfigValidationError } from './errors/config-validation-error';
export type { ContextOverflowDetails } from './errors/context-overflow-error';
export { ContextOverflowError } from './errors/context-overflow-error';
export type { CtxkitErrorOptions, ErrorCategory } from './errors/ctxkit-error';
export { CtxkitError } from './errors/ctxkit-error';
export { DisposedError } from './errors/disposed-error';
export { DuplicatePluginError } from './errors/duplicate-plugin-error';
export { EpochNotFoundError } from './errors/epoch-not-found-error';
export type { ErrorCode } from './errors/error-codes';
export { ErrorCodes } from './errors/error-codes';
export { HistoryValidationError } from './errors/history-validation-error';
export { LLMClientInUseError } from './errors/llm-client-in-use-error';
export type { LLMErrorDetails } from './errors/llm-error-details';
export { LLMNotConfiguredError } from './errors/llm-not-configured-error';
export { LLMRequestError } from './errors/llm-request-error';
export { LLMResponseError } from './errors/llm-response-error';
export { LLMTimeoutError } from './errors/llm-timeout-error';
export type { ManifestIssue } from './errors/manifest-issue';
export { ManifestValidationError } from './errors/manifest-validation-error';
export type { PinCost, PinShortfall } from './errors/pin-budget-exceeded-error';
export { PinBudgetExceededError } from './errors/pin-budget-exceeded-error';
export { PinTargetError } from './errors/pin-target-error';
export { PluginLoadError } from './errors/plugin-load-error';
export { PluginNotFoundError } from './errors/plugin-not-found-error';
export { ProviderPayloadError } from './errors/provider-payload-error';
export { RecallScopeError } from './errors/recall-scope-error';
export { SessionResourceError } from './errors/session-resource-error';
export { SessionTraceError } from './errors/session-trace-error';
export { StoreError } from './errors/store-error';
export { StoreKeyError } from './errors/store-key-error';
export { StrategyError } from './errors/strategy-error';
export { ToolExecutionError } from './errors/tool-execution-error';
export { ToolNotFoundError } from './errors/tool-not-found-error';
export { ToolOutputRefNotFoundError } from './errors/tool-output-ref-not-found-error';
export { UnsafePathError } from './errors/unsafe-path-error';

// token counting implementations
export type { CreateTokenCounterOptions } from './token-counting/create-token-counter';
export { createTokenCounter, DEFAULT_TOKENIZER_BACKEND } from './token-counting/create-token-counter';
// immutable histories: the deep freeze behind them
export { freezeDeep } from './messages/freeze-deep';
// trimming
export type {
  Embedder,
  SemanticOptions,
  TrimMessagesOptions,
  TrimMessagesResult,
  TrimStatistics,
} from './trimming/trim-messages';
export { trimMessages } from './trimming/trim-messages';
// model registry implementation
export { BUILTIN_MODELS } from './models/builtin-models';
export { ModelRegistry } from './models/default-model-registry';
export { PROVIDER_CACHE_TTL_MS, providerCacheTtlMs } from './models/provider-cache-ttl';
// stores
export type { FileContextStoreOptions } from './stores/file-context-store';
export { FileContextStore } from './stores/file-context-store';
export type { MemoryContextStoreOptions } from './stores/memory-context-store';
export { MemoryContextStore } from './stores/memory-context-store';
// pins: what every session keeps whatever its strategy drops
export type { DeclaredPin } from './pins/declared-pin';
export { DEFAULT_PIN_SHARE } from './pins/pin-share';
export { PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL } from './pins/pin-tools';
// where memory blocks and the pinned block are sent (a strategy's `memoryRole`, the agent's `pinRole`)
export type { MemoryRole } from './composer/memory-frame';
// manifests, loader, runtime
export type { Constructor } from './di/agent-container';
export { AgentContainer } from './di/agent-container';
export type { AgentManifest, PluginManifest } from './plugins/plugin-manifest';
export { DEFAULT_STRATEGY_ID } from './plugins/plugin-manifest';
export type { ManifestKind, ManifestValidationResult, ValidateManifestOptions } from './plugins/validate-manifest';
export { validateManifest } from './plugins/validate-manifest';
export type { AgentHandle, SessionOptions } from './runtime/agent-handle';
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
export type { AgentSource, LazyAgent, OpenAgentOptions, OpenedAgent } from './runtime/open-agent';
export { checkAgentSource, lazyAgent, openAgent } from './runtime/open-agent';
