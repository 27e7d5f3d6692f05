import * as path from 'node:path';

import { findCoreTarball } from './core-tarball';
import { type CtxkitWorkspace, findCtxkitWorkspace } from './ctxkit-workspace';
import type { PublishedVersion, PublishedVersionLookup } from './published-version';

/**
 * Where a scaffolded package gets `@ctxkit/core` from, which decides how it is installed:
 * - `workspace`: inside a ctxkit checkout; the semver range resolves to the workspace's core;
 * - `tarball`: a `file:` dependency on an `npm pack` tarball (`--from-tarballs <dir>`);
 * - `registry`: the semver range, from the npm registry, with what the registry said about it.
 */
export type CoreDependency =
  | { source: 'workspace'; spec: string; version: string; workspace: CtxkitWorkspace }
  | { source: 'tarball'; spec: string; version: string; tarball: string }
  | { source: 'registry'; spec: string; version: string; registry: PublishedVersion };

/** Options of {@link resolveCoreDependency}. */
export interface CoreDependencyOptions {
  /** The new package's directory. */
  dir: string;
  /** The `@ctxkit/core` version this CLI runs with. */
  coreVersion: string;
  /** A directory of `npm pack` tarballs of the ctxkit packages. */
  fromTarballs?: string;
  /** Asks the registry about the range (only when neither tarballs nor a ctxkit workspace apply). */
  lookUpPublishedVersion: PublishedVersionLookup;
}

/**
 * Chooses the `@ctxkit/core` dependency of a package scaffolded in `dir`: the tarball when
 * `fromTarballs` is given (its path relative to the package, as `npm install <tarball>` writes it),
 * else the workspace's core inside a ctxkit checkout, else the registry.
 * @throws CtxkitError `CTXKIT_MANIFEST_NOT_FOUND` when `fromTarballs` holds no usable core tarball
 */
export function resolveCoreDependency(options: CoreDependencyOptions): CoreDependency {
  const dir = path.resolve(options.dir);
  if (options.fromTarballs !== undefined) {
    const tarball = findCoreTarball(options.fromTarballs, options.coreVersion);
    const relative = path.relative(dir, tarball.file).split(path.sep).join('/');
    return { source: 'tarball', spec: `file:${relative}`, version: tarball.version, tarball: tarball.file };
  }
  const spec = `^${options.coreVersion}`;
  const workspace = findCtxkitWorkspace(dir);
  if (workspace) return { source: 'workspace', spec, version: options.coreVersion, workspace };
  return {
    source: 'registry',
    spec,
    version: options.coreVersion,
    registry: options.lookUpPublishedVersion('@ctxkit/core', spec),
  };
}
