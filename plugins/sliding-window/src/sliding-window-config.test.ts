import * as fs from 'node:fs';
import * as path from 'node:path';
import { SLIDING_WINDOW_DEFAULTS, SLIDING_WINDOW_STRATEGY_ID } from './sliding-window-config';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'plugin.json'), 'utf8')) as {
  id: string;
  kind: string;
  entry: string;
  configSchema: { additionalProperties: boolean; properties: Record<string, { default?: unknown }> };
};

describe('sliding-window config', () => {
  it('has schema defaults equal to the documented defaults', () => {
    const schemaDefaults = Object.fromEntries(Object.entries(manifest.configSchema.properties).map(([name, property]) => [name, property.default]));
    expect(schemaDefaults).toEqual({ ...SLIDING_WINDOW_DEFAULTS });
  });

  it('declares the plugin id, kind and entry, and rejects unknown config fields', () => {
    expect(manifest.id).toBe(SLIDING_WINDOW_STRATEGY_ID);
    expect(manifest.kind).toBe('context-strategy');
    expect(manifest.entry).toBe('./dist/index.js');
    expect(manifest.configSchema.additionalProperties).toBe(false);
  });
});
