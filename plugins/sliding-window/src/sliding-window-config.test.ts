import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  resolveSlidingWindowConfig,
  SLIDING_WINDOW_DEFAULTS,
  SLIDING_WINDOW_STRATEGY_ID,
  type SlidingWindowConfig,
} from './sliding-window-config';

/**
 * Every key of the TypeScript type, once: the compiler rejects this object when a key of
 * SlidingWindowConfig is missing here or a key here is not one of the type.
 */
const TYPE_KEYS: Record<keyof SlidingWindowConfig, true> = {
  model: true,
  maxContextTokens: true,
  reserveOutputTokens: true,
  safetyMarginRatio: true,
  cutBackRatio: true,
  keepFirstShare: true,
};

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'plugin.json'), 'utf8')) as {
  id: string;
  kind: string;
  entry: string;
  configSchema: { additionalProperties: boolean; properties: Record<string, { default?: unknown }> };
};

describe('sliding-window config', () => {
  it("takes its defaults from the schema, and the config type has exactly the schema's fields", () => {
    const schemaDefaults = Object.fromEntries(
      Object.entries(manifest.configSchema.properties).map(([name, property]) => [name, property.default]),
    );
    expect({ ...SLIDING_WINDOW_DEFAULTS }).toEqual(schemaDefaults);
    expect(Object.keys(TYPE_KEYS).sort()).toEqual(Object.keys(manifest.configSchema.properties).sort());
  });

  it("validates a direct caller's config as the loader does: defaults applied, every invalid field listed", () => {
    expect(resolveSlidingWindowConfig({ maxContextTokens: 4000 })).toEqual({
      ...SLIDING_WINDOW_DEFAULTS,
      maxContextTokens: 4000,
    });
    expect(() => resolveSlidingWindowConfig({ maxContextTokens: -1, cutBackRatio: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID' }),
    );
  });

  it('declares the plugin id, kind and entry, and rejects unknown config fields', () => {
    expect(manifest.id).toBe(SLIDING_WINDOW_STRATEGY_ID);
    expect(manifest.kind).toBe('context-strategy');
    expect(manifest.entry).toBe('./dist/index.js');
    expect(manifest.configSchema.additionalProperties).toBe(false);
  });
});
