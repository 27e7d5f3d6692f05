/**
 * `@ctxkit/strategy-entity-extraction`: plugin `std-entity-extraction-strategy`,
 * a schema-driven conversation state in place of the dialogue flow. Explicit named exports only.
 * @see docs/strategies/entity-extraction.md
 */
export { createStrategy } from './create-entity-extraction-strategy';
export { EntityExtractionStrategy, ENTITY_STATE_STORE_NAME } from './entity-extraction-strategy';
export type { EntityExtractionStrategyOptions } from './entity-extraction-strategy';
export { ENTITY_EXTRACTION_STRATEGY_ID, resolveEntityExtractionConfig } from './entity-extraction-config';
export type { EntityExtractionConfig, EntityExtractionConfigInput } from './entity-extraction-config';
export { hasEntityState } from './state/entity-state-access';
export type { EntityStateAccess } from './state/entity-state-access';
export type { EntityFieldChange, EntityState, EntityStateVersion, ExtractorKind, PersistedEntityState } from './state/entity-state';
export { compileStateSchema } from './schema/state-schema';
export type { CompiledStateSchema, StateField } from './schema/state-schema';
export { mergeState } from './extraction/merge-state';
export type { MergeResult } from './extraction/merge-state';
export { parseJsonAnswer } from './extraction/parse-json-answer';
export type { ParsedAnswer } from './extraction/parse-json-answer';
export { DEFAULT_EXTRACTION_PROMPT } from './extraction/extraction-prompt';
export { LLMExtractor } from './extraction/llm-extractor';
export type { LLMExtractorOptions } from './extraction/llm-extractor';
export type { ExtractionInput, ExtractionSource } from './extraction/extraction-input';
export type { ExtractionOutcome, ExtractionRequest, StateExtractor } from './extraction/state-extractor';
export { OFFLINE_EXTRACTOR_NAME, OfflineExtractor } from './offline/offline-extractor';
export type { OfflineExtractorOptions } from './offline/offline-extractor';
export { shapeRegex } from './offline/shape-regex';
export { STATE_BLOCK_TAG } from './payload/render-state-block';
