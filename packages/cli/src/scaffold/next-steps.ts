import * as path from 'node:path';

import type { CoreDependency } from './core-dependency';

/** Where the package went and what it depends on: what {@link nextSteps} needs. */
export interface NextStepsInput {
  /** The package's directory. */
  dir: string;
  /** The npm package name (for `npm test -w <name>`). */
  packageName: string;
  core: CoreDependency;
  /** Where the user runs the commands from. @default process.cwd() */
  cwd?: string;
}

const TEST = 'npm test        # unit test + the ctxkit conformance suite';
const BUILD = 'npm run build   # dist/ for the runtime to load';
const TARBALL_HOWTO = 'in a ctxkit checkout: `npm run build`, then `npm pack -w @ctxkit/core --pack-destination <dir>`';

function cdTo(from: string, to: string): string[] {
  const relative = path.relative(from, to);
  return relative === '' ? [] : [`cd ${relative.includes(' ') ? JSON.stringify(relative) : relative}`];
}

function block(title: string, commands: readonly string[]): string {
  return `${title}\n${commands.map((command) => `  ${command}`).join('\n')}\n`;
}

/**
 * The commands that install, test and build a scaffolded package from where the user is. It says
 * `npm install` only where the package's dependencies resolve: a workspace of a ctxkit checkout
 * (installed from the root), a tarball dependency, or a range the registry has. Where the registry
 * does not have `@ctxkit/core`, it says how to install it from a tarball instead.
 */
export function nextSteps(input: NextStepsInput): string {
  const cwd = input.cwd ?? process.cwd();
  const { core } = input;
  const inDir = cdTo(cwd, input.dir);
  switch (core.source) {
    case 'workspace': {
      const { root, member } = core.workspace;
      if (member) {
        return block(`Next (a workspace of ${root}):`, [
          ...cdTo(cwd, root),
          'npm install     # links the new workspace',
          `npm test -w ${input.packageName}`,
          `npm run build -w ${input.packageName}`,
        ]);
      }
      return block(
        `Next (its dependencies resolve from ${path.join(root, 'node_modules')}; to install it as a workspace, add ` +
          `its directory to the workspaces of ${path.join(root, 'package.json')}):`,
        [...inDir, TEST, BUILD],
      );
    }
    case 'tarball':
      return block(`Next (@ctxkit/core from ${core.tarball}):`, [...inDir, 'npm install', TEST, BUILD]);
    case 'registry': {
      const { registry } = core;
      if (registry.published === true) return block('Next:', [...inDir, 'npm install', TEST, BUILD]);
      const fromTarball = `npm install <dir>/ctxkit-core-${core.version}.tgz`;
      if (registry.published === false) {
        return (
          `@ctxkit/core@${core.spec} is not on the npm registry (${registry.summary}): \`npm install\` cannot ` +
          `resolve this package's dependencies from there.\n` +
          block(
            'Next, with @ctxkit/core from a tarball (or scaffold with --from-tarballs <dir>, which writes that ' +
              'dependency):',
            [...inDir, `${fromTarball}   # ${TARBALL_HOWTO}`, TEST, BUILD],
          )
        );
      }
      return (
        `Could not ask the npm registry for @ctxkit/core@${core.spec} (${registry.reason}).\n` +
        block('Next:', [
          ...inDir,
          `npm install     # only if @ctxkit/core@${core.spec} is published on your registry`,
          TEST,
          BUILD,
        ]) +
        `If it is not, install it from a tarball instead of \`npm install\`: ${fromTarball} (${TARBALL_HOWTO}).\n`
      );
    }
  }
}
