import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

import type { DatasetFamily } from './dataset-family';

/** Where the lab presets live (works from `src/` and `dist/`). */
export const PRESETS_DIR = path.join(__dirname, '../../presets');

interface PresetFile {
  windows: Partial<Record<DatasetFamily, number>>;
  strategies: Record<string, Partial<Record<DatasetFamily, Record<string, unknown>>>>;
}

let presets: PresetFile | undefined;

function loadPresets(): PresetFile {
  presets ??= JSON.parse(fs.readFileSync(path.join(PRESETS_DIR, 'lab-presets.json'), 'utf8')) as PresetFile;
  return presets;
}

/** The preset window of a transcript family, if it has one. */
export function presetWindow(family: DatasetFamily): number | undefined {
  return loadPresets().windows[family];
}

/** What the lab knows of a plugin to configure it. */
export interface LabPlugin {
  id: string;
  /** The plugin's directory (for `plugin:` schema files). */
  directory?: string;
  /** The plugin's `configSchema` (keys it does not declare are left out when it forbids extras). */
  configSchema?: Readonly<Record<string, unknown>>;
}

function readJsonFile(file: string, pluginId: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'internal',
      message: `Lab preset for ${pluginId}: cannot read ${file}: ${(error as Error).message}.`,
      fix: 'Reinstall @ctxkit/cli, or pass --strategy to leave this strategy out.',
      details: { pluginId, file },
    });
  }
}

/**
 * The config the lab gives a strategy on one transcript family: `{ model, maxContextTokens }` plus
 * the family's preset (schema files resolved: `preset:<file>` from the presets folder,
 * `plugin:<id>/<file>` from that plugin's directory). Keys the plugin's `configSchema` does not
 * declare are left out when it forbids additional properties.
 */
export function labConfig(
  plugin: LabPlugin,
  family: DatasetFamily,
  window: number,
  plugins: readonly LabPlugin[],
): Record<string, unknown> {
  const table = loadPresets().strategies[plugin.id] ?? {};
  const preset = { ...(table.default ?? {}), ...(table[family] ?? {}) };
  const config: Record<string, unknown> = { model: 'gpt-4o', maxContextTokens: window };
  for (const [key, value] of Object.entries(preset)) {
    if (key === 'stateSchemaFile' && typeof value === 'string') {
      config.stateSchema = readJsonFile(resolveSchemaFile(value, plugins, plugin.id), plugin.id);
    } else {
      config[key] = value;
    }
  }
  const properties = (plugin.configSchema?.properties ?? undefined) as Record<string, unknown> | undefined;
  if (properties && plugin.configSchema?.additionalProperties === false) {
    for (const key of Object.keys(config)) if (!(key in properties)) delete config[key];
  }
  return config;
}

function resolveSchemaFile(reference: string, plugins: readonly LabPlugin[], pluginId: string): string {
  if (reference.startsWith('preset:')) return path.join(PRESETS_DIR, reference.slice('preset:'.length));
  const match = /^plugin:([a-z0-9-]+)\/(.+)$/.exec(reference);
  const owner = match ? plugins.find((p) => p.id === match[1]) : undefined;
  if (!match || !owner?.directory) {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'internal',
      message: `Lab preset for ${pluginId}: cannot resolve ${reference}.`,
      fix: 'Check packages/cli/presets/lab-presets.json.',
      details: { pluginId, reference },
    });
  }
  return path.join(owner.directory, match[2]!);
}
