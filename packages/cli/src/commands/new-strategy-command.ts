import * as fs from 'node:fs';
import * as path from 'node:path';

import type { CliOutput } from '../cli-output';
import { type CoreDependency, resolveCoreDependency } from '../scaffold/core-dependency';
import { installedCoreVersion } from '../scaffold/installed-core-version';
import { nextSteps } from '../scaffold/next-steps';
import { lookUpPublishedVersion, type PublishedVersionLookup } from '../scaffold/published-version';
import { checkScaffoldDirectory } from '../scaffold/scaffold-directory';
import { strategyNames } from '../scaffold/strategy-names';
import { strategyTemplate } from '../scaffold/strategy-template';

/** The options of `ctxkit new-strategy` (see docs/06-writing-a-strategy.md). */
export interface NewStrategyOptions {
  dir?: string;
  id?: string;
  /**
   * A directory of `npm pack` tarballs of the ctxkit packages: `@ctxkit/core` becomes a `file:`
   * dependency on its tarball there, so the package installs where ctxkit is not on the registry.
   */
  fromTarballs?: string;
  /** How the registry is asked whether `@ctxkit/core` is published. @default `npm view` */
  lookUpPublishedVersion?: PublishedVersionLookup;
}

/** What {@link scaffoldStrategy} wrote. */
export interface ScaffoldedStrategy {
  dir: string;
  /** Paths of the files written, relative to `dir`. */
  files: string[];
  pluginId: string;
  packageName: string;
  /** Where the package's `@ctxkit/core` comes from (and so how it is installed). */
  core: CoreDependency;
}

/**
 * Writes a new strategy plugin package (manifest with configSchema, a class implementing
 * IContextManager, factory, unit test, conformance test, README) into `dir` (default `./<name>`).
 * Its `@ctxkit/core` dependency fits where it is written: the workspace's core inside a ctxkit
 * checkout, the tarball with `fromTarballs`, else the registry's range (and the registry is asked
 * whether it has it). Refuses to write into a directory that is not empty.
 * @throws CtxkitError `CTXKIT_PLUGIN_PATH_UNSAFE` for a bad name or id, or a non-empty directory
 * @throws CtxkitError `CTXKIT_MANIFEST_NOT_FOUND` when `fromTarballs` holds no core tarball
 */
export function scaffoldStrategy(name: string, options: NewStrategyOptions = {}): ScaffoldedStrategy {
  const names = strategyNames(name, options.id);
  const dir = checkScaffoldDirectory(options.dir ?? names.kebab);
  const core = resolveCoreDependency({
    dir,
    coreVersion: installedCoreVersion(),
    fromTarballs: options.fromTarballs,
    lookUpPublishedVersion: options.lookUpPublishedVersion ?? lookUpPublishedVersion,
  });
  const files = strategyTemplate(names, core);
  for (const file of files) {
    const target = path.join(dir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text);
  }
  return { dir, files: files.map((file) => file.path), pluginId: names.pluginId, packageName: names.packageName, core };
}

/** `ctxkit new-strategy <name>`: writes the package, then the commands that install, test and build it from here. */
export async function newStrategyCommand(
  name: string,
  options: NewStrategyOptions,
  output: CliOutput,
): Promise<number> {
  const result = scaffoldStrategy(name, options);
  output.out(`Created ${result.pluginId} in ${result.dir}:\n${result.files.map((file) => `  ${file}`).join('\n')}\n\n`);
  output.out(nextSteps({ dir: result.dir, packageName: result.packageName, core: result.core }));
  return 0;
}
