/**
 * `@ctxkit/core/testing`: the conformance suite every strategy plugin runs (built-in or custom),
 * the generators it uses, and the bundled real conversations. Explicit named exports only.
 */

// bundled conversations
export type { BundledConversationName, ConversationFact, ConversationRecord } from './conversation-record';
export { BUNDLED_CONVERSATIONS } from './conversation-record';
export { bundledConversationsDir, loadConversations, parseConversations } from './load-conversations';

// conformance suite
export type { CaseBudget, CaseExpectation, CaseFamily, ConformanceCase, ConformanceStep } from './conformance-case';
export type { ConformanceFailure, ConformanceInvariant } from './conformance-failure';
export { ConformanceError, formatFailure } from './conformance-failure';
export type { ComposeCall, PayloadObservation, RecordedEvent } from './check-payload';
export { checkPayload, checkRejection, mandatoryTokens, matchHistoryInPayload, payloadLimit, REDUCTION_EVENTS, TRUNCATION_MARKER } from './check-payload';
export type { ConformanceContextInput, ConformanceLLM, RecordingContext } from './conformance-context';
export { CONFORMANCE_EPOCH_MS, createConformanceContext } from './conformance-context';
export type { ConformanceCaseResult, ConformanceTarget } from './run-conformance-case';
export type { PluginConformanceSource } from './plugin-conformance-target';
export { pluginConformanceTarget } from './plugin-conformance-target';
export { runConformanceCase } from './run-conformance-case';
export type { ConformanceDepth, ConformanceOptions, ConformanceReport, DescribeFn, ItFn } from './strategy-tester';
export { checkConformance, runConformance, runConformanceCases, runPropertyCases, StrategyTester } from './strategy-tester';
export type { ConversationCaseOptions } from './conformance-cases';
export { budgetCases, conversationCases, hostileCases, longHistoryCases } from './conformance-cases';
export { freezeDeep, isFrozenWriteError } from './freeze-deep';
export { structuralKey } from './structural-key';

// generators
export {
  arbConformanceCase,
  arbHistory,
  arbHostileHistory,
  arbText,
  arbToolCallId,
  arbToolDefinitions,
  arbToolExchange,
  arbToolOutput,
  arbTurn,
  DEFAULT_CASE_BUDGETS,
  MULTILINGUAL_SNIPPETS,
  PROTOTYPE_KEY_IDS,
} from './arbitraries';
export type { SyntheticHistoryOptions } from './synthetic-history';
export { generateHistory, seededRandom, SYNTHETIC_TOOLS } from './synthetic-history';

// scripted LLM client (kernel area)
export { ScriptedLLMClient, type RecordedRequest, type ScriptedLLMClientOptions, type ScriptedReply, type ScriptStep } from './scripted-llm-client';
export { SilentLLMClient } from './silent-llm-client';

// store contract (stores area)
export { HOSTILE_STORE_KEY_PARTS, INVALID_STORE_KEY_PARTS, runStoreContract, STORE_CONTRACT_LARGE_BLOB_BYTES, type StoreContractOptions } from './store-contract';
