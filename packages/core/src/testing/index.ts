/**
 * `@ctxkit/core/testing`: what a strategy or store author tests with. The conformance suite every
 * strategy plugin runs (`runConformance`, or `checkConformance` outside a test framework), a context
 * for unit tests of a strategy, scripted and silent model clients, the bundled real conversations,
 * the store and recall backend contracts, and the scenario of recall shared by two processes over a
 * store. The generators (fast-check arbitraries, synthetic histories) are at
 * `@ctxkit/core/testing/generators`. Explicit named exports only.
 */

// conformance suite
export type { CaseBudget, CaseExpectation, CaseFamily, ConformanceCase, ConformanceStep } from './conformance-case';
export type { ConformanceFailure, ConformanceInvariant } from './conformance-failure';
export { ConformanceError } from './conformance-failure';
export type { ConformanceDepth, ConformanceOptions, ConformanceReport, DescribeFn, ItFn } from './strategy-tester';
export { checkConformance, runConformance } from './strategy-tester';

// a strategy's context in unit tests
export { freezeDeep } from '../messages/freeze-deep';
export type { RecordedEvent } from './check-payload';
export type { ConformanceContextInput, ConformanceLLM, RecordingContext } from './conformance-context';
export { createConformanceContext } from './conformance-context';

// model clients
export {
  type RecordedRequest,
  ScriptedLLMClient,
  type ScriptedLLMClientOptions,
  type ScriptedReply,
  type ScriptStep,
} from './scripted-llm-client';
export { SilentLLMClient, type SilentLLMClientOptions } from './silent-llm-client';

// bundled conversations
export type { BundledConversationName, ConversationFact, ConversationRecord } from './conversation-record';
export { loadConversations } from './load-conversations';
// framework adapters' replays of the bundled conversations
export {
  type AdapterReplay,
  adapterReplays,
  recordedToolOutputs,
  type RecordedTurn,
  recordedTurns,
  standardStrategyConfigs,
  unpairedCalls,
} from './adapter-replays';

// store contract
export { runStoreContract, type StoreContractOptions } from './store-contract';
export { storeFailureOf } from './store-failure-of';

// recall backend contract
export {
  type RecallBackendContractOptions,
  type RecallBackendPair,
  runRecallBackendContract,
} from './recall-backend-contract';

// recall shared by processes over a store (worker processes on the built packages)
export {
  type RecallProcessesScenarioOptions,
  type RecallProcessesServer,
  runRecallProcessesScenario,
} from './recall-processes-scenario';
export type { RecallStoreModule } from './recall-processes-worker';
