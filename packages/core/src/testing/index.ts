/**
 * `@ctxkit/core/testing`: the conformance suite every strategy plugin runs (built-in or custom),
 * the generators it uses, and the bundled real conversations. Explicit named exports only.
 */

// bundled conversations
export type { BundledConversationName, ConversationFact, ConversationRecord } from './conversation-record';
export { BUNDLED_CONVERSATIONS } from './conversation-record';
export { bundledConversationsDir, loadConversations, parseConversations } from './load-conversations';

// scripted LLM client (kernel area)
export { ScriptedLLMClient, type RecordedRequest, type ScriptedLLMClientOptions, type ScriptedReply, type ScriptStep } from './scripted-llm-client';

// store contract (stores area)
export { INVALID_STORE_KEY_PARTS, runStoreContract, STORE_CONTRACT_LARGE_BLOB_BYTES, type StoreContractOptions } from './store-contract';
