import { CtxkitError } from '../errors/ctxkit-error';
import { PluginLoadError } from '../errors/plugin-load-error';
import { StrategyError } from '../errors/strategy-error';
import { applyConfigSchema } from './apply-config-schema';
import type { PluginRecord } from './plugin-record';
import type { StrategyFactory, StrategyPluginModule } from './strategy-plugin';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
const factories = new WeakMap<PluginRecord, StrategyFactory<any>>();

/**
 * The strategy factory of a plugin, importing its entry on first use (and only then: discovery
 * never runs plugin code). The entry exports one function, `createStrategy(config, context)`.
 * @throws PluginLoadError (`CTXKIT_PLUGIN_LOAD_FAILED`) when the entry is missing (not built) or does not export
 *   `createStrategy`
 * @throws StrategyError (`CTXKIT_STRATEGY_ERROR`) when the entry's own code throws while loading
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
export function loadPluginFactory(record: PluginRecord, agentId = '(loading)'): StrategyFactory<any> {
  const cached = factories.get(record);
  if (cached) return cached;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  let factory: StrategyFactory<any>;
  if (record.factory) factory = record.factory;
  else {
    const entry = record.entryPath;
    if (!entry) throw new PluginLoadError(record.id, '(none)', 'the plugin has neither an entry nor a factory');
    let loaded: StrategyPluginModule;
    try {
      loaded = require(entry) as StrategyPluginModule;
    } catch (error) {
      if (CtxkitError.isInstance(error)) throw error;
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes(entry)) {
        throw new PluginLoadError(
          record.id,
          record.manifest.entry,
          'the entry module does not exist (is the plugin built?)',
          error,
        );
      }
      throw new StrategyError(record.id, agentId, 'import', error);
    }
    factory = factoryOf(loaded, record);
  }
  factories.set(record, factory);
  return factory;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
function factoryOf(loaded: StrategyPluginModule | undefined, record: PluginRecord): StrategyFactory<any> {
  if (typeof loaded?.createStrategy === 'function') return loaded.createStrategy;
  throw new PluginLoadError(
    record.id,
    record.manifest.entry,
    `it does not export a createStrategy(config, context) function ` +
      `(exports: ${Object.keys(loaded ?? {}).join(', ') || 'none'})`,
  );
}

/**
 * Validates an agent's strategy config against the plugin's `configSchema` (compiled once and
 * cached) and returns a deep copy with the schema's defaults applied. The caller's object is never
 * touched, so a frozen config is fine.
 * @param config the agent's `contextStrategy.config` (`undefined` means `{}`)
 * @param file the agent manifest, for issues (`<inline>` for an object)
 * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) when the plugin's configSchema is not valid JSON Schema
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every issue with file, JSON pointer and expectation
 */
export function validatePluginConfig(record: PluginRecord, config: unknown, file: string): Record<string, unknown> {
  return applyConfigSchema(record.id, record.manifest.configSchema, config, {
    file,
    schemaFile: `${record.manifestPath ?? record.source}#/configSchema`,
    pointer: '/contextStrategy/config',
  });
}
