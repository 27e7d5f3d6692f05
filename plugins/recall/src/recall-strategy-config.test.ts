import * as fs from 'node:fs';
import * as path from 'node:path';

import { RECALL_CONFIG_SCHEMA } from '@ctxkit/core/strategy-kit';

import {
  RECALL_STRATEGY_DEFAULTS,
  RECALL_STRATEGY_ID,
  type RecallStrategyConfig,
  resolveRecallStrategyConfig,
} from './recall-strategy-config';

/** Every key of the TypeScript type, once: the compiler rejects this object when a key is missing or extra. */
const TYPE_KEYS: Record<keyof RecallStrategyConfig, true> = {
  model: true,
  maxContextTokens: true,
  reserveOutputTokens: true,
  safetyMarginRatio: true,
  cutBackRatio: true,
  recall: true,
};

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'plugin.json'), 'utf8')) as {
  id: string;
  kind: string;
  entry: string;
  configSchema: {
    additionalProperties: boolean;
    properties: Record<string, { default?: unknown } & Record<string, unknown>>;
  };
};

describe('recall strategy config', () => {
  it("has exactly the schema's fields, with the schema's defaults", () => {
    expect(Object.keys(TYPE_KEYS).sort()).toEqual(Object.keys(manifest.configSchema.properties).sort());
    expect(RECALL_STRATEGY_DEFAULTS.model).toBe('gpt-4o');
    expect(RECALL_STRATEGY_DEFAULTS.recall).toEqual(
      Object.fromEntries(
        Object.entries(RECALL_CONFIG_SCHEMA.properties as Record<string, { default: unknown }>).map(([key, value]) => [
          key,
          value.default,
        ]),
      ),
    );
  });

  it("embeds core's recall schema as it is, so that every strategy with recall reads the same settings", () => {
    const { default: defaultValue, description, ...recall } = manifest.configSchema.properties.recall!;
    expect(defaultValue).toEqual({});
    expect(typeof description).toBe('string');
    expect(recall).toEqual(RECALL_CONFIG_SCHEMA);
    for (const plugin of ['dynamic-summarization', 'entity-extraction']) {
      const other = JSON.parse(
        fs.readFileSync(path.join(__dirname, '..', '..', plugin, 'plugin.json'), 'utf8'),
      ) as typeof manifest;
      const { type, default: none, description: text, ...rest } = other.configSchema.properties.recall!;
      expect({ type, none, hasText: typeof text === 'string' }).toEqual({
        type: ['object', 'null'],
        none: null,
        hasText: true,
      });
      expect({ ...rest, type: 'object' }).toEqual(RECALL_CONFIG_SCHEMA);
    }
  });

  it("validates a direct caller's config as the loader does", () => {
    expect(resolveRecallStrategyConfig({ recall: { share: 0.3 } }).recall).toEqual({
      ...RECALL_STRATEGY_DEFAULTS.recall,
      share: 0.3,
    });
    expect(() => resolveRecallStrategyConfig({ recall: { share: 2, scope: 'everyone' } } as never)).toThrow(
      expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID' }),
    );
  });

  it('declares the plugin id, kind and entry, and rejects unknown config fields', () => {
    expect(manifest.id).toBe(RECALL_STRATEGY_ID);
    expect(manifest.kind).toBe('context-strategy');
    expect(manifest.entry).toBe('./dist/index.js');
    expect(manifest.configSchema.additionalProperties).toBe(false);
  });
});
