import * as path from 'node:path';

import { discoverPlugins } from '../plugins/discover-plugins';
import { loadPluginFactory, validatePluginConfig } from '../plugins/load-plugin';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import type { CaseBudget } from './conformance-case';
import type { ConformanceTarget } from './run-conformance-case';

/** A conformance target named by its plugin: what {@link ConformanceOptions} accepts beside a factory. */
export interface PluginConformanceSource<TConfig = Record<string, unknown>> {
  /**
   * The plugin's directory (or its `plugin.json`): the manifest is read and validated as the runtime
   * reads it, and every case's config (yours plus the case's `maxContextTokens` and
   * `reserveOutputTokens`) is validated by the plugin's own `configSchema`, defaults applied, as the
   * loader does for an agent.
   */
  plugin: string;
  /**
   * The factory to test instead of the one the loader imports from the manifest's `entry` (the
   * built output): pass the source's `createStrategy` to test sources without a build. The manifest
   * and its config schema are still the plugin's.
   * @default the entry's `createStrategy`, imported by the runtime's loader
   */
  factory?: StrategyFactory<TConfig>;
  /** Your part of the config (the cases add their budget), or the whole config of a case budget. @default {} */
  config?: Partial<TConfig> | ((budget: CaseBudget) => TConfig);
}

/**
 * The conformance target of a plugin loaded the way a host loads it: `plugin.json` read and validated
 * by the runtime's discovery, the entry imported by its loader (unless a factory is given), each
 * case's config validated by the plugin's `configSchema` with its defaults applied.
 * @throws ManifestValidationError, PluginLoadError, UnsafePathError as the runtime does for the same plugin
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) from a case when the config breaks the plugin's schema
 */
export function pluginConformanceTarget<TConfig>(
  source: PluginConformanceSource<TConfig>,
): Pick<ConformanceTarget<TConfig>, 'factory' | 'config'> {
  const dir = path.basename(source.plugin) === 'plugin.json' ? path.dirname(source.plugin) : source.plugin;
  const { plugins } = discoverPlugins({ pluginDirs: [dir], discoverInstalled: false });
  if (plugins.length !== 1)
    throw new TypeError(
      `pluginConformanceTarget: ${dir} holds ${plugins.length} strategy plugins; name the directory of one plugin ` +
        `(the one holding its plugin.json).`,
    );
  const record = plugins[0]!;
  const factory: StrategyFactory<TConfig> =
    source.factory ?? ((config, context) => loadPluginFactory(record, 'conformance')(config, context));
  return {
    factory,
    config: (budget: CaseBudget) => {
      const given =
        typeof source.config === 'function' ? source.config(budget) : { ...(source.config ?? {}), ...budget };
      return validatePluginConfig(record, given, `<conformance of ${record.id}>`) as TConfig;
    },
  };
}
