import * as fs from 'node:fs';
import * as path from 'node:path';

import satisfies from 'semver/functions/satisfies';

import { CtxkitError } from '../errors/ctxkit-error';
import { DuplicatePluginError } from '../errors/duplicate-plugin-error';
import { ManifestValidationError } from '../errors/manifest-validation-error';
import { PluginLoadError } from '../errors/plugin-load-error';
import { freezeDeep } from '../messages/freeze-deep';
import { CTXKIT_CORE_VERSION } from './core-version';
import { resolveInside } from './plugin-id';
import type { PluginManifest } from './plugin-manifest';
import type { PluginRecord } from './plugin-record';
import { readManifestFile, validateManifest } from './validate-manifest';

/** Options of {@link discoverPlugins}. */
export interface DiscoverPluginsOptions {
  /**
   * Directories the host allows plugins from. Each is a plugin directory (it holds a
   * `plugin.json`, or a `package.json` with `"ctxkit": { "plugin": ... }`) or a directory of
   * plugin directories. A broken plugin here fails discovery: the host asked for it.
   * @default []
   */
  pluginDirs?: readonly string[];
  /**
   * Also find installed packages that declare themselves ctxkit plugins (`package.json`
   * `"ctxkit": { "plugin": "./plugin.json" }`) in the `node_modules` directories above
   * `searchFrom`. The repo's own `plugins/` are found this way, through the workspace links
   * `node_modules/@ctxkit/strategy-*`.
   * @default true
   */
  discoverInstalled?: boolean;
  /**
   * Where the `node_modules` search starts; every `node_modules` directory on the way up to the
   * filesystem root is searched.
   * @default [process.cwd(), the directory of @ctxkit/core]
   */
  searchFrom?: readonly string[];
}

/** A plugin that was found but cannot be used (invalid manifest, unsafe path). */
export interface PluginDiscoveryProblem {
  /** The id it declares, when readable. */
  id?: string;
  source: string;
  error: CtxkitError;
}

/** What {@link discoverPlugins} found. */
export interface PluginDiscovery {
  /** Valid plugins, sorted by id. */
  plugins: PluginRecord[];
  /**
   * Installed packages that declare themselves plugins but are broken. They are not listed; an
   * agent that asks for one of their ids gets the recorded error.
   */
  problems: PluginDiscoveryProblem[];
}

/**
 * Finds strategy plugins where the host allows them: its `pluginDirs`, and installed
 * packages that declare themselves ctxkit plugins. Every manifest is validated; entries must
 * resolve inside their plugin's directory. Nothing is imported here: entries load on first use.
 *
 * The same directory reached twice (a workspace link and a host dir) counts once.
 * @throws DuplicatePluginError (`CTXKIT_DUPLICATE_PLUGIN`) when two different plugins declare one id, naming both
 * @throws ManifestValidationError (`CTXKIT_MANIFEST_INVALID`) for an invalid plugin in `pluginDirs`
 * @throws UnsafePathError (`CTXKIT_PLUGIN_PATH_UNSAFE`) for an entry outside its plugin directory in `pluginDirs`
 * @throws PluginLoadError (`CTXKIT_PLUGIN_LOAD_FAILED`) for a plugin in `pluginDirs` whose `engines.ctxkit` excludes
 *   this core
 * @see docs/03-plugin-json.md
 */
export function discoverPlugins(options: DiscoverPluginsOptions = {}): PluginDiscovery {
  const found = new Map<string, PluginRecord>();
  const problems: PluginDiscoveryProblem[] = [];
  const seenDirs = new Set<string>();

  const add = (record: PluginRecord): void => {
    if (seenDirs.has(record.dir!)) return;
    seenDirs.add(record.dir!);
    const existing = found.get(record.id);
    if (existing) throw new DuplicatePluginError(record.id, existing.source, record.source);
    found.set(record.id, record);
  };

  for (const hostDir of options.pluginDirs ?? []) {
    for (const candidate of pluginDirCandidates(path.resolve(hostDir))) {
      add(readPlugin(candidate.manifestPath, candidate.dir, `directory ${candidate.dir}`));
    }
  }

  if (options.discoverInstalled ?? true) {
    for (const pkg of installedPluginPackages(options.searchFrom ?? [process.cwd(), __dirname])) {
      try {
        const manifestPath = resolveInside(pkg.dir, pkg.pluginField, `"ctxkit.plugin" of package ${pkg.name}`);
        add(readPlugin(manifestPath, pkg.dir, `package ${pkg.name}`));
      } catch (error) {
        if (error instanceof DuplicatePluginError || !CtxkitError.isInstance(error)) throw error;
        problems.push({ id: declaredId(pkg.dir, pkg.pluginField), source: `package ${pkg.name}`, error });
      }
    }
  }

  const plugins = [...found.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { plugins, problems };
}

/** Reads, validates and freezes one plugin's manifest. */
function readPlugin(manifestPath: string, pluginDir: string, source: string): PluginRecord {
  const read = readManifestFile(manifestPath);
  if (read.issue) throw new ManifestValidationError(read.file, [read.issue]);
  const result = validateManifest(read.manifest, { kind: 'plugin', file: read.file });
  if (!result.valid) throw new ManifestValidationError(read.file, result.errors);
  const manifest = freezeDeep(structuredClone(read.manifest) as PluginManifest);
  const range = manifest.engines?.ctxkit;
  if (range !== undefined && !satisfies(CTXKIT_CORE_VERSION, range)) {
    throw new PluginLoadError(
      manifest.id,
      manifest.entry,
      `engines.ctxkit "${range}" does not include @ctxkit/core ${CTXKIT_CORE_VERSION}`,
    );
  }
  const dir = realpath(pluginDir);
  const entryPath = resolveInside(dir, manifest.entry, `entry of ${manifest.id}`);
  return {
    id: manifest.id,
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    source,
    manifest,
    manifestPath: read.file,
    dir,
    entryPath,
  };
}

/** A host dir is one plugin, or a directory of plugins (one level down). */
function pluginDirCandidates(dir: string): Array<{ dir: string; manifestPath: string }> {
  const own = ownManifest(dir);
  if (own) return [{ dir, manifestPath: own }];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (cause) {
    throw new ManifestValidationError(
      dir,
      [
        {
          file: dir,
          pointer: '',
          message: 'plugin directory not found or unreadable',
          expected: 'a directory holding plugin.json, or holding plugin directories',
        },
      ],
      cause,
    );
  }
  const candidates: Array<{ dir: string; manifestPath: string }> = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const child = path.join(dir, entry.name);
    if (!isDirectory(child)) continue;
    const manifestPath = ownManifest(child);
    if (manifestPath) candidates.push({ dir: child, manifestPath });
  }
  return candidates;
}

/** The manifest a plugin directory declares: `package.json` `ctxkit.plugin`, else `plugin.json`. */
function ownManifest(dir: string): string | undefined {
  const pluginField = readPackageJson(dir)?.ctxkit?.plugin;
  if (typeof pluginField === 'string')
    return resolveInside(dir, pluginField, `"ctxkit.plugin" of ${path.join(dir, 'package.json')}`);
  const manifestPath = path.join(dir, 'plugin.json');
  return fs.existsSync(manifestPath) ? manifestPath : undefined;
}

interface PackageJson {
  name?: string;
  ctxkit?: { plugin?: unknown };
}

function readPackageJson(dir: string): PackageJson | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return undefined;
  }
}

/** Installed packages whose package.json has `"ctxkit": { "plugin": "<path>" }`. */
function installedPluginPackages(
  searchFrom: readonly string[],
): Array<{ name: string; dir: string; pluginField: string }> {
  const packages: Array<{ name: string; dir: string; pluginField: string }> = [];
  const seen = new Set<string>();
  for (const nodeModules of nodeModulesDirs(searchFrom)) {
    for (const dir of packageDirs(nodeModules)) {
      const real = realpath(dir);
      if (seen.has(real)) continue;
      seen.add(real);
      const pkg = readPackageJson(dir);
      const pluginField = pkg?.ctxkit?.plugin;
      if (typeof pluginField === 'string')
        packages.push({ name: pkg?.name ?? path.basename(dir), dir: real, pluginField });
    }
  }
  return packages;
}

function nodeModulesDirs(searchFrom: readonly string[]): string[] {
  const dirs: string[] = [];
  const seen = new Set<string>();
  for (const start of searchFrom) {
    let current = path.resolve(start);
    for (;;) {
      const candidate = path.join(current, 'node_modules');
      if (isDirectory(candidate)) {
        const real = realpath(candidate);
        if (!seen.has(real)) {
          seen.add(real);
          dirs.push(candidate);
        }
      }
      const parent = path.dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  return dirs;
}

function packageDirs(nodeModules: string): string[] {
  const dirs: string[] = [];
  for (const name of safeReaddir(nodeModules).sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(nodeModules, name);
    if (name.startsWith('@')) {
      for (const scoped of safeReaddir(full).sort()) if (!scoped.startsWith('.')) dirs.push(path.join(full, scoped));
    } else dirs.push(full);
  }
  return dirs;
}

function declaredId(dir: string, pluginField: string): string | undefined {
  try {
    const read = readManifestFile(path.resolve(dir, pluginField));
    const id = (read.manifest as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function realpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
