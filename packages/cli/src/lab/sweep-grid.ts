import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

import { PRESETS_DIR } from './lab-config';

/**
 * A sweep grid: per plugin id, per config key, the values tried. A key may name a nested key with
 * dots (`recall.share`). Every combination is one configuration.
 */
export type SweepGrid = Record<string, Record<string, readonly unknown[]>>;

/** One configuration of a sweep: the keys it sets over the strategy's config, and its row label. */
export interface SweepConfiguration {
  /** The keys swept, flat (`{ "cutBackRatio": 0.6, "recall.share": 0.5 }`); empty for the strategy's defaults. */
  values: Record<string, unknown>;
  /** The config keys to set, nested (`{ "recall": { "share": 0.5 } }`). */
  config: Record<string, unknown>;
  /** The plugin id, followed by the swept values as JSON unless they are the defaults. */
  label: string;
}

/** The bundled grid (`presets/sweep-grids.json`), or the file given. */
export function readSweepGrid(file = path.join(PRESETS_DIR, 'sweep-grids.json')): SweepGrid {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw gridError(file, `cannot read it: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw gridError(file, 'it needs an object of plugin ids');
  const grid: SweepGrid = {};
  for (const [id, keys] of Object.entries(parsed as Record<string, unknown>)) {
    if (id.startsWith('$')) continue;
    if (typeof keys !== 'object' || keys === null || Array.isArray(keys))
      throw gridError(file, `"${id}" needs an object of config keys, each an array of values`);
    grid[id] = {};
    for (const [key, values] of Object.entries(keys as Record<string, unknown>)) {
      if (!Array.isArray(values) || values.length === 0)
        throw gridError(file, `"${id}" → "${key}" needs a non-empty array of values`);
      grid[id]![key] = values;
    }
  }
  return grid;
}

/**
 * The configurations of one strategy in a sweep: its defaults first (label: the plugin id), then
 * every combination of the grid's values that differs from the defaults. A combination that sets
 * `keepFirstShare` above 0 with `cutBackRatio` at 1 is left out: that share only acts on a cut
 * window, so it repeats the combination with 0. A key the plugin's `configSchema` does not declare
 * is an error that names the keys it does.
 */
export function sweepConfigurations(
  pluginId: string,
  grid: SweepGrid,
  configSchema: Readonly<Record<string, unknown>> | undefined,
): SweepConfiguration[] {
  const keys = grid[pluginId] ?? {};
  const properties = (configSchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const key of Object.keys(keys)) {
    if (schemaAt(properties, key) === undefined) {
      throw new CtxkitError({
        code: ErrorCodes.CONFIG_INVALID,
        category: 'user',
        message: `Sweep grid for ${pluginId}: "${key}" is not a config key of this strategy.`,
        fix:
          `Sweep keys it declares: ${Object.keys(properties).sort().join(', ')} (nested ones with dots, such as ` +
          `recall.share).`,
        details: { pluginId, key },
      });
    }
  }
  const defaults = Object.fromEntries(Object.keys(keys).map((key) => [key, schemaAt(properties, key)!.default]));
  const combinations = Object.entries(keys).reduce<Array<Record<string, unknown>>>(
    (partial, [key, values]) =>
      partial.flatMap((combination) => values.map((value) => ({ ...combination, [key]: value }))),
    [{}],
  );
  const configurations: SweepConfiguration[] = [{ values: {}, config: {}, label: pluginId }];
  const seen = new Set<string>();
  for (const values of combinations) {
    const cutBack = values.cutBackRatio ?? defaults.cutBackRatio;
    if (typeof values.keepFirstShare === 'number' && values.keepFirstShare > 0 && cutBack === 1) continue;
    if (Object.entries(values).every(([key, value]) => JSON.stringify(value) === JSON.stringify(defaults[key])))
      continue;
    const label = `${pluginId} ${JSON.stringify(values)}`;
    if (seen.has(label)) continue;
    seen.add(label);
    configurations.push({ values, config: nestedConfig(values), label });
  }
  return configurations;
}

/** `{ "recall.share": 0.5, "cutBackRatio": 0.6 }` as config keys: `{ recall: { share: 0.5 }, cutBackRatio: 0.6 }`. */
export function nestedConfig(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const parts = key.split('.');
    let target = config;
    for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[parts[parts.length - 1]!] = value;
  }
  return config;
}

/** Merges nested config objects, `over` winning: `{ recall: { share } }` over `{ recall: { scope } }` keeps both. */
export function mergeConfig(
  base: Readonly<Record<string, unknown>>,
  over: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = merged[key];
    merged[key] = isObject(value) && isObject(below) ? mergeConfig(below, value) : value;
  }
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema of a dotted key inside a `configSchema`'s properties. */
function schemaAt(
  properties: Record<string, Record<string, unknown>>,
  key: string,
): Record<string, unknown> | undefined {
  const [head, ...rest] = key.split('.');
  const schema = properties[head!];
  if (schema === undefined || rest.length === 0) return schema;
  return schemaAt((schema.properties ?? {}) as Record<string, Record<string, unknown>>, rest.join('.'));
}

function gridError(file: string, problem: string): CtxkitError {
  return new CtxkitError({
    code: ErrorCodes.CONFIG_INVALID,
    category: 'user',
    message: `Sweep grid ${file}: ${problem}.`,
    fix:
      'Fix the file (the shape of packages/cli/presets/sweep-grids.json: { "<plugin id>": { "<config key>": ' +
      '[values] } }), or leave --grid out to sweep the bundled grid.',
    details: { file },
  });
}
