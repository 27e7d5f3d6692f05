import type { PluginManifest } from './plugin-manifest';
import type { StrategyFactory } from './strategy-plugin';

/**
 * A strategy plugin the runtime knows: discovered on disk (with its directory and entry, loaded
 * lazily), or registered in process (with its factory).
 */
export interface PluginRecord {
  id: string;
  name: string;
  version: string;
  description?: string;
  /**
   * Where it came from, for listings and error messages: `package <name>` (an installed package
   * declaring `"ctxkit": { "plugin": ... }`), `directory <path>` (a host-named plugin dir), or
   * `in-process` (`runtime.registerStrategy`).
   */
  source: string;
  manifest: Readonly<PluginManifest>;
  /** The `plugin.json` file; `undefined` for in-process strategies. */
  manifestPath?: string;
  /** The plugin directory (links resolved); `undefined` for in-process strategies. */
  dir?: string;
  /** Absolute path of the entry module, checked to be inside `dir`. */
  entryPath?: string;
  /** The factory of an in-process strategy. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  factory?: StrategyFactory<any>;
}
