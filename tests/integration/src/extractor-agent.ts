import type { AgentManifest } from '@ctxkit/core';

/**
 * An agent `id` on the entity extraction strategy (gpt-4o) whose state holds the fields `properties`
 * (JSON Schema of each) and nothing else.
 */
export function extractorAgent(
  id: string,
  properties: Record<string, Record<string, unknown>>,
  config: Record<string, unknown> = {},
): AgentManifest {
  return {
    id,
    model: 'gpt-4o',
    contextStrategy: {
      type: 'plugin',
      pluginId: 'std-entity-extraction-strategy',
      config: { stateSchema: { type: 'object', properties, additionalProperties: false }, ...config },
    },
  };
}
