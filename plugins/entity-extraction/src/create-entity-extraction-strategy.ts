import type { StrategyContext } from '@ctxkit/core';

import { type EntityExtractionConfigInput, resolveEntityExtractionConfig } from './entity-extraction-config';
import { EntityExtractionStrategy } from './entity-extraction-strategy';
import { LLMExtractor } from './extraction/llm-extractor';
import type { StateExtractor } from './extraction/state-extractor';
import { OfflineExtractor } from './offline/offline-extractor';
import { compileStateSchema } from './schema/state-schema';

/**
 * The factory of `std-entity-extraction-strategy` (what the loader calls, and direct callers too). Validates the config
 * (defaults from `plugin.json`), compiles the state schema with ajv (so a bad schema fails when the agent loads), and
 * picks the extractor: the LLM extraction chain with `context.llm` (model `extractionModel`, else the agent's model),
 * or the deterministic offline extractor when the agent has no language model.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for a config that does not match the configSchema
 * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) for a state schema that does not compile
 *   or does not describe an object
 * @see docs/strategies/entity-extraction.md
 */
export function createStrategy(
  config: EntityExtractionConfigInput | Record<string, unknown>,
  context: StrategyContext,
): EntityExtractionStrategy {
  const resolved = resolveEntityExtractionConfig(config);
  const schema = compileStateSchema(resolved.stateSchema, `${context.agentId}/${context.strategyId}`);
  const extractor: StateExtractor = context.llm
    ? new LLMExtractor({
        llm: context.llm,
        model: resolved.extractionModel ?? context.model,
        instruction: resolved.extractionPrompt,
        maxOutputTokens: resolved.extractionMaxOutputTokens,
        timeoutMs: resolved.extractionTimeoutMs,
      })
    : new OfflineExtractor(schema);
  return new EntityExtractionStrategy({ config: resolved, context, schema, extractor });
}
