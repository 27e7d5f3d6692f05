/**
 * `@ctxkit/strategy-entity-extraction`: plugin `std-entity-extraction-strategy`,
 * a schema-driven conversation state in place of the dialogue flow. Explicit named exports only.
 * @see docs/strategies/entity-extraction.md
 */
export { createStrategy } from './create-entity-extraction-strategy';
export type { EntityExtractionConfig, EntityExtractionConfigInput } from './entity-extraction-config';
export { ENTITY_EXTRACTION_STRATEGY_ID, resolveEntityExtractionConfig } from './entity-extraction-config';
export type { EntityExtractionStrategyOptions } from './entity-extraction-strategy';
export { ENTITY_STATE_STORE_NAME, EntityExtractionStrategy } from './entity-extraction-strategy';
export type { ExtractionInput, ExtractionSource } from './extraction/extraction-input';
export { DEFAULT_EXTRACTION_PROMPT } from './extraction/extraction-prompt';
export type { LLMExtractorOptions } from './extraction/llm-extractor';
export { LLMExtractor } from './extraction/llm-extractor';
export type { MergeResult } from './extraction/merge-state';
export { mergeState } from './extraction/merge-state';
export type { ParsedAnswer } from './extraction/parse-json-answer';
export { parseJsonAnswer } from './extraction/parse-json-answer';
export type { ExtractionOutcome, ExtractionRequest, StateExtractor } from './extraction/state-extractor';
export type { OfflineExtractorOptions } from './offline/offline-extractor';
export { OFFLINE_EXTRACTOR_NAME, OfflineExtractor } from './offline/offline-extractor';
export { shapeRegex } from './offline/shape-regex';
export { STATE_BLOCK_TAG } from './payload/render-state-block';
export type { CompiledStateSchema, StateField } from './schema/state-schema';
export { compileStateSchema } from './schema/state-schema';
export type {
  EntityFieldChange,
  EntityState,
  EntityStateVersion,
  ExtractorKind,
  PersistedEntityState,
} from './state/entity-state';
export type { EntityStateAccess } from './state/entity-state-access';
export { hasEntityState } from './state/entity-state-access';
