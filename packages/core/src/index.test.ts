import * as core from './index';
import * as strategyKit from './strategy-kit';
import * as testing from './testing';
import * as generators from './testing/generators';

// Pins the public surface: adding or removing an export is a deliberate change to this list.
describe('@ctxkit/core exports', () => {
  it('exports exactly the public runtime API', () => {
    expect(Object.keys(core).sort()).toEqual([
    'AgentContainer',
    'BUILTIN_MODELS',
    'BudgetExceededError',
    'CTXKIT_INSTRUMENTATION_SCOPE',
    'CapabilityUnsupportedError',
    'CompactionNoProgressError',
    'ConfigSchemaError',
    'ConfigValidationError',
    'ContextOverflowError',
    'CtxkitAttributes',
    'CtxkitError',
    'CtxkitEventBus',
    'CtxkitMetricNames',
    'CtxkitMetricUnits',
    'CtxkitSpanEventNames',
    'CtxkitSpanNames',
    'DEFAULT_AGENT_MODEL',
    'DEFAULT_PIN_SHARE',
    'DEFAULT_SESSION_ID',
    'DEFAULT_STRATEGY_ID',
    'DEFAULT_TOKENIZER_BACKEND',
    'DisposedError',
    'DuplicatePluginError',
    'EpochNotFoundError',
    'ErrorCodes',
    'FileContextStore',
    'GenAiAttributes',
    'HistoryValidationError',
    'IAgentId',
    'IContextManager',
    'IContextStore',
    'IEventBus',
    'ILLMClient',
    'IModelRegistry',
    'IStrategyContext',
    'ITextEmbedder',
    'ITokenCounter',
    'LLMClientInUseError',
    'LLMNotConfiguredError',
    'LLMRequestError',
    'LLMResponseError',
    'LLMTimeoutError',
    'ManifestValidationError',
    'MemoryContextStore',
    'ModelRegistry',
    'PIN_CONTEXT_TOOL',
    'PinBudgetExceededError',
    'PinTargetError',
    'PluginLoadError',
    'PluginNotFoundError',
    'ProviderPayloadError',
    'RecallScopeError',
    'SessionResourceError',
    'StoreError',
    'StoreKeyError',
    'StrategyError',
    'ToolExecutionError',
    'ToolNotFoundError',
    'ToolOutputRefNotFoundError',
    'UNPIN_CONTEXT_TOOL',
    'UnsafePathError',
    'createContextRuntime',
    'createTokenCounter',
    'createTokenUsage',
    'defineStrategy',
    'freezeDeep',
    'hasCompactionHooks',
    'hasContributedTools',
    'hasDispose',
    'hasWhenIdle',
    'openAgent',
    'safeEmit',
    'toTokenUsage',
    'trimMessages',
    'truncatesToolOutputs',
    'validateManifest',
    ]);
  });

  it('exports exactly the strategy kit from @ctxkit/core/strategy-kit, none of it again from the main entry', () => {
    expect(Object.keys(strategyKit).sort()).toEqual([
      'BpeTokenCounter',
      'DEFAULT_MAX_EPOCHS',
      'DEFAULT_MEMORY_ROLE',
      'DEFAULT_MEMORY_SHARE',
      'DEFAULT_RESERVE_OUTPUT_TOKENS',
      'DEFAULT_SAFETY_MARGIN_RATIO',
      'DeadlineBoundLLMClient',
      'EpochLog',
      'FailureBackoff',
      'GptTokenizerEncoder',
      'HeuristicTokenCounter',
      'HistoryLedger',
      'JsTiktokenEncoder',
      'LARGE_MESSAGE_CHARS',
      'MAX_ENCODED_STORE_KEY_PART',
      'MEMORY_RECORD_NOTE',
      'MESSAGE_OVERHEAD_TOKENS',
      'MIN_TRUNCATED_OUTPUT_TOKENS',
      'OLDER_THAN_WINDOW_REASON',
      'PayloadComposer',
      'RECALLED_REASON',
      'RECALL_BLOCK_NAME',
      'RECALL_CONFIG_SCHEMA',
      'RECALL_TAG',
      'RecallLayer',
      'STORE_KINDS',
      'SerialQueue',
      'SharedCountCaches',
      'StoreRecallBackend',
      'StrategyFoundation',
      'StrategyLifetime',
      'TOOL_OUTPUT_SHARE',
      'ToolResultCollapser',
      'TurnCounter',
      'TurnIndex',
      'UNVERSIONED',
      'USAGE_LEVEL_THRESHOLDS',
      'applyConfigSchema',
      'assertHistoryShape',
      'assertMessageShape',
      'assertStoreKey',
      'assertStoreKeyPrefix',
      'baseName',
      'budgetFromConfig',
      'buildPayload',
      'checkedVectors',
      'collapsedToolResult',
      'completeBeforeDeadline',
      'computeBudget',
      'contentDigest',
      'contentText',
      'contentlessSummary',
      'contentlessSummaryMessage',
      'countLineFeeds',
      'createAjv',
      'cutToUtf8Bytes',
      'decodeStoreKeyPart',
      'defaultRecallConfig',
      'elisionMarker',
      'emitReductions',
      'encodeStoreKeyPart',
      'escapeMemoryText',
      'escapeRecalledText',
      'findPayloadProblems',
      'formatStoreKey',
      'groupAt',
      'groupEndingAt',
      'groupToolCalls',
      'imageTokens',
      'languageOfPath',
      'memoryAllowance',
      'memoryBlockText',
      'memoryPreamble',
      'messageFingerprint',
      'messageImages',
      'messageOverheadTokens',
      'messageText',
      'messageTokens',
      'networkErrorCode',
      'payloadPreview',
      'previewItem',
      'previewItems',
      'readVersioned',
      'recallBackendFor',
      'remainingForToolOutput',
      'resolveModelEncoding',
      'retryAfterMs',
      'schemaDialect',
      'selectHistoryWindow',
      'supportsCompareAndSet',
      'surrogateSafeCut',
      'toolContentText',
      'truncateHead',
      'truncateHeadTail',
      'truncateTail',
      'truncateToFit',
      'untilAborted',
      'usageLevel',
      'utf8ByteLength',
      'withUsage',
      'writeIfVersion',
    ]);
    for (const name of Object.keys(strategyKit)) expect(Object.keys(core)).not.toContain(name);
  });

  it('keeps internals internal: manifest validators, the plugin loader, the raw tsyringe container', () => {
    for (const name of ['compileConfigSchema', 'manifestValidator', 'container', 'loadPluginFactory', 'validatePluginConfig']) {
      expect(core).not.toHaveProperty(name);
    }
  });
});

describe('@ctxkit/core/testing exports', () => {
  it('exports exactly what a strategy or store author tests with: the suite, a context, model clients, conversations, the store contract', () => {
    expect(Object.keys(testing).sort()).toEqual([
    'ConformanceError',
    'ScriptedLLMClient',
    'SilentLLMClient',
    'checkConformance',
    'createConformanceContext',
    'freezeDeep',
    'loadConversations',
    'runConformance',
    'runRecallBackendContract',
    'runRecallProcessesScenario',
    'runStoreContract',
    'storeFailureOf',
    ]);
  });

  it('re-exports the deep freeze of the main entry, the one the kernel freezes histories with', () => {
    expect(testing.freezeDeep).toBe(core.freezeDeep);
  });

  it('keeps the suite internals internal: cases, checks, targets and generators', () => {
    for (const name of ['checkPayload', 'runConformanceCase', 'pluginConformanceTarget', 'hostileCases', 'StrategyTester', 'arbHistory', 'seededRandom', 'structuralKey']) {
      expect(testing).not.toHaveProperty(name);
    }
  });
});

describe('@ctxkit/core/testing/generators exports', () => {
  it('exports exactly the fast-check arbitraries and the seeded synthetic history', () => {
    expect(Object.keys(generators).sort()).toEqual([
    'SYNTHETIC_TOOLS',
    'arbHistory',
    'arbHostileHistory',
    'arbText',
    'arbToolCallId',
    'arbToolDefinitions',
    'arbToolExchange',
    'arbToolOutput',
    'arbTurn',
    'generateHistory',
    'seededRandom',
    ]);
    for (const name of Object.keys(generators)) expect(Object.keys(testing)).not.toContain(name);
  });
});
